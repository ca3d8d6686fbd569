# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by the tests of the HTML pages (report.t, history.t) after
# lib.sh: what every page must be (self-contained, inline SVGs whose
# ids do not collide), and headless Chromium (Debian's chromium) on it, with
# nothing to fetch and its logging on stderr, where a console error
# shows.

# t_page_ids PAGE: self-contained (no script, nothing fetched, a CSP
# that forbids both), no id twice (each inline SVG's are prefixed), and
# every #reference resolves.
t_page_ids() {
	python3 - "$1" <<'PY'
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
assert html.startswith("<!DOCTYPE html>")
assert not re.search(r"<script", html, re.I), "a <script> element"
assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html, re.I)
assert not re.search(r"url\(\s*['\"]?(https?:|//)", html, re.I)
assert "default-src 'none'" in html
ids = re.findall(r"""\sid=["']([^"']+)["']""", html)
dups = {x for x in ids if ids.count(x) > 1}
assert not dups, sorted(dups)[:5]
refs = set(re.findall(r"""href=["']#([^"']+)["']""", html))
refs |= set(re.findall(r"url\(#([^)]+)\)", html))
assert refs <= set(ids), sorted(refs - set(ids))[:5]
PY
}

# t_chrome PAGE WIDTH,HEIGHT ARGS...: chromium's ARGS on the file PAGE.
t_chrome() {
	_page=$1 _size=$2
	shift 2
	timeout 60 chromium --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run \
		--disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$T_TMP/chrome" --enable-logging=stderr --v=0 \
		--window-size="$_size" "$@" "file://$_page"
}

# t_chrome_shot PAGE WIDTH HEIGHT MIN_BYTES: its screenshot into
# $T_TMP/shot.png (logging in $T_TMP/shot.err), a PNG of WIDTH x HEIGHT
# and over MIN_BYTES (a blank page compresses to a few kB); its size in
# $T_SHOT_SIZE.
t_chrome_shot() {
	t_chrome "$1" "$2,$3" --screenshot="$T_TMP/shot.png" \
		>"$T_TMP/shot.out" 2>"$T_TMP/shot.err"
	_st=$?
	T_SHOT_SIZE=$(wc -c <"$T_TMP/shot.png" 2>/dev/null || echo 0)
	[ "$_st" -eq 0 ] && [ "$T_SHOT_SIZE" -gt "$4" ] &&
		python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(24); assert d[:8]==b"\x89PNG\r\n\x1a\n"; assert struct.unpack(">II", d[16:24]) == (int(sys.argv[2]), int(sys.argv[3]))' "$T_TMP/shot.png" "$2" "$3"
	_st=$?
	[ "$_st" -eq 0 ] || t_diag "chromium: exit/size $T_SHOT_SIZE" "$(tail -5 "$T_TMP/shot.err")"
	return $_st
}

# t_chrome_dom PAGE WIDTH,HEIGHT: its DOM into $T_TMP/dom.html; fails on
# a console error here or in the screenshot's logging.
t_chrome_dom() {
	t_chrome "$1" "$2" --dump-dom >"$T_TMP/dom.html" 2>"$T_TMP/dom.err" &&
		! grep -E 'CONSOLE|Uncaught|Refused to' "$T_TMP/dom.err" \
			"$T_TMP/shot.err" 2>/dev/null
}

# t_chrome_page PAGE WIDTH HEIGHT MIN_BYTES [COPY]: two tests, its
# screenshot (copied to COPY when given) and its DOM loaded with no
# console error, the DOM left in $T_TMP/dom.html for the caller's own
# checks. Without chromium, one failed test that says so, and 1.
t_chrome_page() {
	if ! command -v chromium >/dev/null 2>&1; then
		t_ok 1 "chromium is not installed (scripts/install-deps.sh installs it)"
		return 1
	fi
	t_chrome_shot "$1" "$2" "$3" "$4"
	t_ok $? "headless Chromium renders it to a $2x$3 screenshot ($T_SHOT_SIZE bytes)"
	[ -z "${5:-}" ] || cp "$T_TMP/shot.png" "$5"
	t_chrome_dom "$1" "$2,$3"
	t_ok $? "Chromium loads it with no console error"
}

# t_page_widths PAGE WIDTH: every table of PAGE inside a WIDTH-pixel
# window, measured by Chromium. The page holds no script and its CSP
# forbids one, so a scratch copy ($T_TMP/widths.html) trades the CSP
# for a script that writes each table's right edge, and the window's
# width, into the DOM, which --dump-dom hands back; the layout is the
# page's own. Prints each table too wide ("table N: heading: right
# edge R > W") and fails on any, or on no table measured.
t_page_widths() {
	python3 - "$1" "$T_TMP/widths.html" <<'PY' || return 1
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html)
probe = """<script>
addEventListener("load", function () {
	var w = document.documentElement.clientWidth, out = [];
	document.querySelectorAll("table").forEach(function (t, i) {
		var h = t, r = t.getBoundingClientRect(), name = "";
		while (h && !/^H[23]$/.test(h.tagName))
			h = h.previousElementSibling || h.parentElement;
		if (h) name = h.textContent;
		out.push(i + "\\t" + Math.ceil(r.right) + "\\t" + w + "\\t" + name);
	});
	var p = document.createElement("pre");
	p.id = "t-widths";
	p.textContent = out.join("\\n");
	document.body.appendChild(p);
});
</script>"""
open(sys.argv[2], "w", encoding="utf-8").write(html.replace("</body>", probe + "</body>"))
PY
	t_chrome "$T_TMP/widths.html" "$2,900" --dump-dom \
		>"$T_TMP/widths.dom" 2>"$T_TMP/widths.err" &&
		python3 - "$T_TMP/widths.dom" <<'PY'
import html, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<pre id="t-widths">(.*?)</pre>', dom, re.S)
assert m and m.group(1).strip(), "no table measured"
bad = 0
for line in html.unescape(m.group(1)).splitlines():
    i, right, w, name = line.split("\t", 3)
    if int(right) > int(w):
        print("table %s: %s: right edge %s > %s" % (i, name, right, w))
        bad += 1
sys.exit(1 if bad else 0)
PY
}
