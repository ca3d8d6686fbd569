#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# iommu-bench kernel build, for real, on Debian's linux-source-6.1: the
# tarball unpacked and committed once as a scratch git tree in the
# DEFAULT cache by scripts/linux-source-tree.sh (kernel-src/linux-6.1,
# kept: a minute to make, reused by every later run and by the shipped
# configs that build kernels), then the seeds' RFC patch on arm64's defconfig, a
# real x86_64 build of the bootable testbed kernel on tinyconfig
# (configs/kbuild/testbed-guest-tiny.config) and its cache hit, the next
# commit built incrementally in its kept worktree, a fragment option
# whose dependency is missing, and a patch that does not apply. Builds go
# to a scratch cache on tmpfs when there is room: checking out 80k files
# is ten times faster there than on this machine's disk. The kept
# worktree is in the default cache (bisect/test-tiny-x86_64) and stays:
# testbed-nightly.t bisects in it, so its steps are incremental builds
# and make check pays the first one (12 minutes on 2 cores) once.
# Skipped, with the reason, when the kernel source or a build tool is
# missing.
set -eu
. "$(dirname "$0")/lib.sh"

B=$IOMMU_BENCH
FX=$SRCDIR/tests/configs/kbuild
RFC=$FX/0001-iommu-Default-to-lazy-DMA-mode-on-ARM64.patch
TARBALL=${IOMMU_BENCH_KERNEL_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
JOBS=$(nproc 2>/dev/null || echo 2)

t_skip() {
	T_N=$((T_N + 1))
	echo "ok $T_N # SKIP $1"
}

now() { date +%s; }

# Usage errors need no kernel.
t_run 2 "$B" kernel build && t_grep "$T_ERR" "kernel build needs --tree"
t_ok $? "kernel build without --tree is exit 2"
t_run 2 "$B" kernel biuld && t_grep "$T_ERR" "did you mean 'build'"
t_ok $? "a misspelt subcommand is exit 2 with a suggestion"
t_run 2 "$B" kernel build --tree "$T_TMP/none" &&
	t_grep "$T_ERR" "the kernel tree $T_TMP/none"
t_ok $? "a tree that does not exist is exit 2"
t_run 2 "$B" kernel build --tree "$T_TMP" --arch aarch64 &&
	t_grep "$T_ERR" "unknown architecture 'aarch64'"
t_ok $? "an unknown arch is exit 2"
t_run 2 "$B" kernel build --tree "$T_TMP" --cross-compile 'x;reboot' &&
	t_grep "$T_ERR" "is not a CROSS_COMPILE prefix"
t_ok $? "a cross prefix with shell text is exit 2"
t_run 2 "$B" kernel build --tree "$T_TMP" --patch "$T_TMP/no.patch" &&
	t_grep "$T_ERR" "the patch $T_TMP/no.patch"
t_ok $? "a patch that does not exist is exit 2"
t_run 2 "$B" kernel build --tree "$T_TMP" --base='--upload-pack=x'
t_ok $? "a base like an option is exit 2"
t_run 2 "$B" kernel build --tree "$T_TMP" &&
	t_grep "$T_ERR" "is not a git tree"
t_ok $? "a folder that is no git tree is exit 2"
t_run 0 env IOMMU_BENCH_CACHE="$T_TMP/c" "$B" kernel path &&
	[ "$(cat "$T_OUT")" = "$T_TMP/c/kernels" ]
t_ok $? "kernel path follows IOMMU_BENCH_CACHE (kernels/ under it)"

missing=
for tool in git make gcc bc flex bison tar xz perl; do
	command -v "$tool" >/dev/null || missing="$missing $tool"
done
if [ -n "$missing" ]; then
	t_skip "missing build tools:$missing (scripts/install-deps.sh)"
	t_done
	exit
fi
if [ ! -r "$TARBALL" ]; then
	t_skip "no $TARBALL (apt-get install linux-source-6.1)"
	t_done
	exit
fi

# The scratch git tree, in the default cache, made once per tarball.
# An absolute path or nothing: this folder gets rm -rf'ed when stale.
KPATH=$("$B" kernel path) && case $KPATH in /*/kernels) ;; *) false ;; esac
st=$?
t_ok $st "kernel path names the default cache ($KPATH)"
if [ $st -ne 0 ]; then
	t_done
	exit
fi
KROOT=$(dirname "$KPATH")/kernel-src
KSRC=$KROOT/linux-6.1
start=$(now)
st=0
IOMMU_BENCH_KERNEL_SOURCE=$TARBALL sh "$SRCDIR/scripts/linux-source-tree.sh" \
	"$KSRC" >/dev/null || st=$?
t_ok $st "the scratch tree $KSRC is ready"
t_diag "tree prep: $(($(now) - start)) s (about a minute when made, 0 reused)"
if [ $st -ne 0 ]; then
	t_done
	exit
fi
HEAD=$(git -C "$KSRC" rev-parse HEAD)
# Worktrees of the tree this test did not make (a kept --workdir of
# someone else's) are not its leftovers.
worktrees() {
	git -C "$KSRC" worktree list --porcelain | grep '^worktree ' | sort
}
worktrees >"$T_TMP/worktrees.before"

# Builds in a scratch cache; tmpfs when it has room for a worktree.
OUT=$T_TMP/kernels
BUILD_PID=
shm_kb=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
if [ "${shm_kb:-0}" -gt 4000000 ]; then
	OUT=$(mktemp -d /dev/shm/iommu-bench-kbuild.XXXXXX)
fi
# The x86_64 build keeps its worktree and objects here (--workdir), for
# testbed-nightly.t too. A first build there compiles everything; once
# an earlier run left it, only what changed since.
WD=$(dirname "$KPATH")/bisect/test-tiny-x86_64
WD_FRESH=yes
[ ! -d "$WD/build" ] || WD_FRESH=no
on_exit() {
	[ -z "$BUILD_PID" ] || kill "$BUILD_PID" 2>/dev/null
	[ -z "$BUILD_PID" ] || wait "$BUILD_PID" 2>/dev/null
	git -C "$KSRC" worktree prune >/dev/null 2>&1
	case $OUT in /dev/shm/iommu-bench-kbuild.*) rm -rf "$OUT" ;; esac
	t_cleanup
}
trap on_exit EXIT INT TERM
kb() {
	"$B" kernel build --tree "$KSRC" -j "$JOBS" --out "$OUT" "$@"
}

leftovers() {
	ls -d "$OUT"/.tmp-* 2>/dev/null
	worktrees | comm -13 "$T_TMP/worktrees.before" - |
		grep -vx "worktree $WD/linux"
}

# The real x86_64 build takes minutes: it runs in the background while
# the config-only checks run beside it (another key, another lock).
tiny() {
	kb --arch x86_64 --config tinyconfig --fragment "$FX/tiny.config" "$@"
}
bootable() {
	kb --arch x86_64 --config tinyconfig \
		--fragment "$SRCDIR/configs/kbuild/testbed-guest-tiny.config" "$@"
}
build_start=$(now)
bootable --workdir "$WD" --json >"$T_TMP/tiny.json" 2>"$T_TMP/tiny.err" &
BUILD_PID=$!

# The seeds' RFC patch: arm64's default, strict before, lazy after.
if command -v aarch64-linux-gnu-gcc >/dev/null; then
	start=$(now)
	t_run 0 kb --arch arm64 --cross-compile aarch64-linux-gnu- \
		--config defconfig --config-only --json &&
		python3 - "$T_OUT" >"$T_TMP/cfg" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["config_only"] is True and r["cached"] is False, r
assert r["image"] is None and r["missing"] == [], r
print(r["config"])
EOF
	t_ok $? "arm64 defconfig, config only, with aarch64-linux-gnu-"
	t_diag "arm64 config: $(($(now) - start)) s"
	CFG=$(cat "$T_TMP/cfg" 2>/dev/null || true)
	grep -qx 'CONFIG_IOMMU_DEFAULT_DMA_STRICT=y' "$CFG" &&
		grep -qx '# CONFIG_IOMMU_DEFAULT_DMA_LAZY is not set' "$CFG"
	t_ok $? "without the patch: CONFIG_IOMMU_DEFAULT_DMA_STRICT=y"
	t_run 0 kb --arch arm64 --cross-compile aarch64-linux-gnu- \
		--config defconfig --patch "$RFC" --config-only --json &&
		python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["config"])' \
			"$T_OUT" >"$T_TMP/cfg"
	t_ok $? "the same with the RFC patch"
	CFG=$(cat "$T_TMP/cfg" 2>/dev/null || true)
	grep -qx 'CONFIG_IOMMU_DEFAULT_DMA_LAZY=y' "$CFG" &&
		grep -qx '# CONFIG_IOMMU_DEFAULT_DMA_STRICT is not set' "$CFG"
	t_ok $? "with it: CONFIG_IOMMU_DEFAULT_DMA_LAZY=y"
	# The patched default, and a fragment that picks the other member
	# of the choice: the fragment's member must land.
	t_run 0 kb --arch arm64 --cross-compile aarch64-linux-gnu- \
		--config defconfig --patch "$RFC" \
		--fragment "$FX/dma-strict.config" --config-only --json &&
		python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["config"])' \
			"$T_OUT" >"$T_TMP/cfg"
	st=$?
	t_ok $st "the patch and a fragment picking STRICT: the config is made"
	[ $st -eq 0 ] || t_diag "$(tail -5 "$T_ERR")"
	CFG=$(cat "$T_TMP/cfg" 2>/dev/null || true)
	grep -qx 'CONFIG_IOMMU_DEFAULT_DMA_STRICT=y' "$CFG" &&
		grep -qx '# CONFIG_IOMMU_DEFAULT_DMA_LAZY is not set' "$CFG"
	t_ok $? "the fragment's member of the choice wins over the patched default"
else
	t_skip "no aarch64-linux-gnu-gcc (gcc-aarch64-linux-gnu)"
fi

# A fragment option without its dependency, fast with --config-only.
t_run 1 tiny --fragment "$FX/intel-iommu.config" --config-only &&
	t_grep "$T_ERR" "CONFIG_INTEL_IOMMU: wanted y, got not set (from $FX/intel-iommu.config): it depends on" &&
	t_grep "$T_ERR" "CONFIG_PCI" &&
	t_grep "$T_ERR" "--allow-missing-config"
t_ok $? "CONFIG_INTEL_IOMMU on tinyconfig is reported by name with the dependency that is off, exit 1"

wait "$BUILD_PID"
st=$?
BUILD_PID=
t_ok $st "the bootable x86_64 tinyconfig kernel builds"
t_diag "its build: $(($(now) - build_start)) s (beside the checks above; workdir fresh: $WD_FRESH)"
[ $st -eq 0 ] || t_diag "$(tail -25 "$T_TMP/tiny.err")"
python3 - "$T_TMP/tiny.json" <<'EOF'
import json, os, re, sys
r = json.load(open(sys.argv[1]))
assert r["cached"] is False and r["config_only"] is False, r
assert re.fullmatch(r"[0-9a-f]{40}", r["build_id"]), r["build_id"]
assert r["release"].startswith("6.1."), r["release"]
assert r["arch"] == "x86_64" and r["missing"] == [], r
with open(r["image"], "rb") as f:
    assert f.read(0x206)[0x202:] == b"HdrS", "not a bzImage"
for k in ("system_map", "config", "log", "modules_tar"):
    assert os.path.isfile(r[k]), (k, r[k])
assert os.path.isdir(r["modules_dir"]), r["modules_dir"]
assert r["phases"]["build"] > 0 and r["phases"]["modules"] > 0, r["phases"]
for k in ("tree", "base_commit", "compiler", "fragments"):
    assert r["recipe"][k], k
with open(r["config"]) as f:
    config = f.read()
for opt in ("PRINTK", "INTEL_IOMMU", "DEBUG_INFO_BTF", "KPROBES"):
    assert "CONFIG_%s=y\n" % opt in config, "no CONFIG_%s=y" % opt
EOF
t_ok $? "bzImage, System.map, modules.tar, a 40-hex build id, a release, the fragment's options"
grep -q 'kernel build: build, [0-9]* s' "$T_TMP/tiny.err" &&
	grep -q 'kernel build: modules' "$T_TMP/tiny.err"
t_ok $? "progress: the phases and a line while make runs"
t_diag "$(grep 'kernel build: ' "$T_TMP/tiny.err" | grep -v ', [0-9]* s (' |
	head -8)"

start=$(now)
t_run 0 bootable --json && python3 - "$T_OUT" "$T_TMP/tiny.json" <<'EOF'
import json, sys
again, first = (json.load(open(p)) for p in sys.argv[1:])
assert again["cached"] is True, again
assert again["dir"] == first["dir"], (again["dir"], first["dir"])
assert again["build_id"] == first["build_id"], again
EOF
t_ok $? "asked twice: the second is cached, the same entry and build id"
took=$(($(now) - start))
t_diag "cached call: $took s"
[ "$took" -le 10 ]
t_ok $? "and returns at once ($took s)"

# The kept workdir: a commit on top that changes one file compiled in
# tinyconfig (made with git's plumbing: the tree's checkout is never
# touched) builds there incrementally, into an entry of its own.
cc_lines() { grep -c '^  CC ' "$1" || :; }
log_of() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["log"])' "$1"
}
st=0
NEXT=$(GIT_INDEX_FILE=$T_TMP/index sh -ec '
	git -C "$1" read-tree HEAD
	blob=$({ git -C "$1" show HEAD:kernel/panic.c
		echo "const char iommu_bench_mark[] = \"one change\";"; } |
		git -C "$1" hash-object -w --stdin)
	git -C "$1" update-index --cacheinfo "100644,$blob,kernel/panic.c"
	echo "scratch: one comment in kernel/panic.c" |
		git -C "$1" -c user.name=iommu-bench \
			-c user.email=iommu-bench@localhost \
			commit-tree "$(git -C "$1" write-tree)" -p HEAD' sh "$KSRC") ||
	st=$?
t_ok $st "a scratch commit on top of the tree's HEAD"
# Built as a make below `make -s -j2 check` would run it (its flags and
# a jobserver in the environment): the build must be the same as from a
# shell, its own -j and its compile lines in the log.
submake() (
	MAKEFLAGS="s -j2 --jobserver-auth=3,4"
	MFLAGS=-s
	MAKELEVEL=1
	export MAKEFLAGS MFLAGS MAKELEVEL
	"$@"
)
start=$(now)
t_run 0 submake bootable --workdir "$WD" --base "$NEXT" --json &&
	python3 - "$T_OUT" "$T_TMP/tiny.json" <<'EOF'
import json, sys
nxt, first = (json.load(open(p)) for p in sys.argv[1:])
assert nxt["cached"] is False, nxt
assert nxt["dir"] != first["dir"], "the same entry for another commit"
assert nxt["build_id"] != first["build_id"], nxt["build_id"]
assert nxt["recipe"]["base_commit"] != first["recipe"]["base_commit"]
EOF
st=$?
t_ok $st "in the kept workdir, the next commit: an entry and a build id of its own"
[ $st -eq 0 ] || t_diag "$(tail -5 "$T_ERR")"
full=$(cc_lines "$(log_of "$T_TMP/tiny.json")")
incr=$(cc_lines "$(log_of "$T_OUT" 2>/dev/null || echo /dev/null)")
t_diag "incremental build: $(($(now) - start)) s, $incr files compiled (the first: $full)"
[ "${incr:-0}" -ge 1 ] && [ "${incr:-0}" -le 10 ] &&
	{ [ "$WD_FRESH" = no ] || [ "${full:-0}" -gt 100 ]; }
t_ok $? "make rebuilt only what the commit changed ($incr compiled, not $full)"
jobserver=$(grep -c jobserver "$(log_of "$T_OUT" 2>/dev/null || echo /dev/null)" || :)
[ "${incr:-0}" -ge 1 ] && [ "${jobserver:-1}" -eq 0 ]
t_ok $? "started below make -s -j2: compile lines in its log, no outer jobserver ($jobserver lines name one)"
t_run 0 bootable --workdir "$WD" --json && python3 - "$T_OUT" "$T_TMP/tiny.json" <<'EOF'
import json, sys
again, first = (json.load(open(p)) for p in sys.argv[1:])
assert again["cached"] is True and again["dir"] == first["dir"], again
EOF
t_ok $? "back at HEAD: the first commit's own entry, from the cache"

# A patch that does not apply.
before=$(ls "$OUT" | wc -l)
t_run 1 kb --arch x86_64 --patch "$FX/does-not-apply.patch" --config-only &&
	t_grep "$T_ERR" "patch $FX/does-not-apply.patch does not apply" &&
	t_grep "$T_ERR" "error: patch failed: drivers/iommu/Kconfig:93" &&
	t_grep "$T_ERR" "default IOMMU_DEFAULT_DMA_LAZY if X86 || S390"
t_ok $? "a patch that does not apply: exit 1, the patch and its hunk named"
[ -z "$(leftovers)" ] && [ "$(ls "$OUT" | wc -l)" -eq "$before" ]
st=$?
t_ok $st "no worktree (but the kept one), temporary folder or cache entry left behind"
[ $st -eq 0 ] || t_diag "left: $(leftovers | tr '\n' ' ')"
[ -z "$(git -C "$KSRC" status --porcelain)" ] &&
	[ "$(git -C "$KSRC" rev-parse HEAD)" = "$HEAD" ]
t_ok $? "the tree's own checkout was never touched"

t_done
