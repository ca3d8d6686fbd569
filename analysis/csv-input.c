// SPDX-License-Identifier: GPL-2.0-only
/*
 * compare's CSV input: "label,value" lines from anywhere (a spreadsheet,
 * another benchmark, a colleague's numbers), read strictly: a line that
 * is not a label and a finite number is an error naming file, line and
 * text, never silently skipped.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataset.h"
#include "log.h"
#include "util.h"

/*
 * Split one line into two fields, RFC 4180 quoting allowed. The fields
 * are written into @buf. Returns the number of fields, or -1 for an
 * unterminated quote.
 */
static int split_fields(const char *line, char *buf, char *field[3])
{
	const char *p = line;
	char *o = buf;
	int n = 0;

	for (;;) {
		if (n == 3)
			return 4; /* too many: the caller only counts */
		field[n++] = o;
		if (*p == '"') {
			for (p++;; p++) {
				if (!*p)
					return -1;
				if (*p == '"' && p[1] == '"')
					*o++ = *++p;
				else if (*p == '"')
					break;
				else
					*o++ = *p;
			}
			p++;
		}
		while (*p && *p != ',')
			*o++ = *p++;
		*o++ = '\0';
		if (*p != ',')
			return n;
		p++;
	}
}

static bool parse_number(const char *s, double *v)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return false;
	*v = strtod(s, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	return !*end && isfinite(*v);
}

static void chomp(char *line)
{
	size_t len = strlen(line);

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
}

int dataset__load_csv(struct dataset *ds, const char *path,
		      enum store_better better, const char *unit)
{
	char *line = NULL, *buf = NULL, *field[3], *workload, *metric = NULL;
	uint32_t dim[DS_NR_DIMS];
	size_t cap = 0, lineno = 0, values = 0;
	int n, d, err = 0;
	double v;
	FILE *fp;

	fp = fopen(path, "r");
	if (!fp) {
		err = -errno;
		pr_err("%s: %s", path, strerror(errno));
		return err;
	}
	workload = path_stem(path, ".csv");
	for (d = 0; d < DS_NR_DIMS; d++)
		dim[d] = intern__id(&ds->str, "");
	dim[DS_WORKLOAD] = intern__id(&ds->str, workload);
	while (getline(&line, &cap, fp) > 0) {
		lineno++;
		chomp(line);
		if (!line[strspn(line, " \t")] || line[0] == '#')
			continue;
		buf = xrealloc(buf, strlen(line) + 1);
		n = split_fields(line, buf, field);
		if (n == 2 && !values && !metric &&
		    !parse_number(field[1], &v)) {
			/* A header: "mode,throughput" names the metric. */
			metric = xstrdup(*field[1] ? field[1] : "value");
			continue;
		}
		if (n != 2 || !*field[0] || !parse_number(field[1], &v)) {
			pr_err("%s:%zu: expected 'label,value' with a finite "
			       "number as the value, got '%s'",
			       path, lineno, line);
			err = -EINVAL;
			goto out;
		}
		dim[DS_LABEL] = intern__id(&ds->str, field[0]);
		dataset__add(ds, dim, metric ? metric : "value", unit, better,
			     v);
		values++;
	}
	if (ferror(fp)) {
		err = -EIO;
		pr_err("%s: read error", path);
	} else if (!values) {
		pr_err("%s: no 'label,value' lines", path);
		err = -EINVAL;
	}
out:
	fclose(fp);
	free_all(line, buf, workload, metric);
	return err;
}
