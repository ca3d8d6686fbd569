// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page around the sections. Everything it needs is inline: no
 * script, no font, no stylesheet to fetch, and a Content-Security-Policy
 * that forbids all of them, so that the file reads the same in a
 * sandboxed artifact viewer, offline, or years later.
 */
#include <stdio.h>

#include "markup.h"
#include "report-priv.h"

static const char css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
	"margin:0 auto;max-width:1280px;padding:0 24px 48px;color:#1d1d1f;"
	"background:#fff}"
	"h1{font-size:24px;margin:24px 0 4px}"
	"h2{font-size:19px;margin:36px 0 8px;padding-top:8px;"
	"border-top:2px solid #e3e3e8}"
	"h3{font-size:15px;margin:20px 0 6px}"
	".meta{color:#555;margin:0 0 12px}"
	"nav{font-size:13px;margin:8px 0 16px}nav a{margin-right:14px}"
	"a{color:#0b5cad;text-decoration:none}a:hover{text-decoration:underline}"
	".verdict{font-size:17px;margin:6px 0;padding:8px 12px;"
	"background:#f3f7fc;border-left:4px solid #0b5cad}"
	"table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}"
	"th,td{padding:4px 10px;border-bottom:1px solid #e6e6ea;"
	"text-align:left;vertical-align:top}"
	"th{background:#f6f6f8;font-weight:600;white-space:nowrap}"
	"td.num{text-align:right;font-variant-numeric:tabular-nums;"
	"white-space:nowrap}"
	/* Tables that must fit the window: headers wrap, intervals drop. */
	"table.fit th{white-space:normal}.ci{display:block}"
	"td.better{color:#0a7a2f;font-weight:600}"
	"td.worse{color:#b3261e;font-weight:600}"
	"td.same{color:#666}"
	".tag{display:inline-block;font-size:11px;padding:0 6px;"
	"border-radius:8px;margin-left:6px;font-weight:600}"
	".gone{background:#e3f4e8;color:#0a7a2f}"
	".new{background:#fde7e5;color:#b3261e}"
	".warn{color:#8a5300}"
	"ul.warnings li{margin:3px 0}"
	"figure{margin:12px 0 24px}figure svg{width:100%;max-width:960px;"
	"height:auto;display:block}"
	"figcaption{color:#555;font-size:13px;margin-top:4px}"
	".grid{display:grid;grid-template-columns:repeat(auto-fit,"
	"minmax(520px,1fr));gap:8px 24px}"
	"pre{background:#f6f6f8;padding:10px;overflow-x:auto;font-size:12px;"
	"max-height:420px}"
	"code{font-size:12px}"
	"details{margin:4px 0}summary{cursor:pointer;color:#0b5cad}"
	".small{font-size:12px;color:#555}";

void html__head(FILE *fp, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\""
	      "default-src 'none'; style-src 'unsafe-inline'; "
	      "img-src data:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n"
	      "<meta name=\"generator\" content=\"iommu-bench\">\n<title>",
	      fp);
	markup__escape(fp, title);
	fprintf(fp, "</title>\n<style>%s</style>\n</head>\n<body>\n", css);
}

void html__foot(FILE *fp)
{
	fputs("</body>\n</html>\n", fp);
}

void html__h2(FILE *fp, const char *id, const char *title)
{
	fprintf(fp, "<h2 id=\"%s\">", id);
	markup__escape(fp, title);
	fputs("</h2>\n", fp);
}

void html__td(FILE *fp, const char *cls, const char *text)
{
	if (cls && *cls)
		fprintf(fp, "<td class=\"%s\">", cls);
	else
		fputs("<td>", fp);
	markup__escape(fp, text);
	fputs("</td>", fp);
}

void html__th(FILE *fp, const char *text)
{
	fputs("<th>", fp);
	markup__escape(fp, text);
	fputs("</th>", fp);
}

void html__th_row(FILE *fp, const char *const *heads)
{
	fputs("<tr>", fp);
	for (; *heads; heads++)
		html__th(fp, *heads);
	fputs("</tr>\n", fp);
}

void html__td_count(FILE *fp, const char *cls, size_t n)
{
	char num[32];

	snprintf(num, sizeof(num), "%zu", n);
	html__td(fp, cls, num);
}

const char *html__verdict_class(enum cmp_verdict v)
{
	switch (v) {
	case CMP_BETTER:
		return "num better";
	case CMP_WORSE:
		return "num worse";
	case CMP_SAME:
	case CMP_INCONCLUSIVE:
		return "num same";
	default:
		return "num";
	}
}
