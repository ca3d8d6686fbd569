// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf collector's configuration: the matrix's [collect.perf] table,
 * as JSON. The matrix validates it too; this checks again because the
 * agent may be handed JSON from elsewhere, and because these values end
 * up on perf's command line.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "collectors/perf/perf-collector.h"
#include "collectors/perf/perf-counters.h"
#include "collectors/perf/perf-record.h"
#include "log.h"
#include "util.h"

static int want_string(const char *key, const json_t *v, const char *what)
{
	if (json_is_string(v))
		return 0;
	pr_err("perf: %s must be a string (%s)", key, what);
	return -EINVAL;
}

/*
 * A string that ends up on perf's command line: @ok says whether it is
 * @noun, @expected what one looks like; *@out takes a copy.
 */
static int take_word(const char *key, const json_t *v, const char *what,
		     bool (*ok)(const char *s), const char *noun,
		     const char *expected, char **out)
{
	const char *s = json_string_value(v);

	if (want_string(key, v, what))
		return -EINVAL;
	if (!ok(s)) {
		pr_err("perf: %s '%s' is not %s (expected %s)", key, s, noun,
		       expected);
		return -EINVAL;
	}
	free(*out);
	*out = xstrdup(s);
	return 0;
}

static int parse_event(const json_t *v, struct perf_config *c)
{
	return take_word("event", v, "a perf event name", perf_record__event_ok,
			 "a perf event name",
			 "letters, digits and _-:./=,@, not starting with '-'",
			 &c->event);
}

static int parse_freq(const json_t *v, struct perf_config *c)
{
	json_int_t f = json_integer_value(v);

	if (!json_is_integer(v) || f < PERF_MIN_FREQ || f > PERF_MAX_FREQ) {
		pr_err("perf: frequency must be an integer %d..%d (samples "
		       "per second per CPU)",
		       PERF_MIN_FREQ, PERF_MAX_FREQ);
		return -EINVAL;
	}
	c->freq = (unsigned int)f;
	return 0;
}

static int parse_callgraph(const json_t *v, struct perf_config *c)
{
	const char *s = json_string_value(v);
	size_t i;

	if (want_string("callgraph", v, "none, fp, dwarf or lbr"))
		return -EINVAL;
	for (i = 0; perf_callgraph_names[i]; i++)
		if (!strcmp(s, perf_callgraph_names[i])) {
			free(c->callgraph);
			c->callgraph = xstrdup(s);
			return 0;
		}
	pr_err("perf: callgraph '%s' is not one of none, fp, dwarf, lbr", s);
	return -EINVAL;
}

static int parse_counters(const json_t *v, struct perf_config *c)
{
	const json_t *e;
	size_t i;

	if (!json_is_array(v)) {
		pr_err("perf: counters must be an array of event names");
		return -EINVAL;
	}
	json_array_foreach(v, i, e) {
		const char *name =
			perf_counters__canonical(json_string_value(e));

		if (!name) {
			pr_err("perf: counter '%s' is not one of: %s",
			       json_is_string(e) ? json_string_value(e) : "?",
			       perf_counters__known());
			return -EINVAL;
		}
		c->counters = xrealloc(c->counters, (c->nr_counters +
						     1) * sizeof(*c->counters));
		c->counters[c->nr_counters++] = xstrdup(name);
	}
	return 0;
}

static int parse_cpus(const json_t *v, struct perf_config *c)
{
	if (json_is_null(v))
		return 0;
	return take_word("cpus", v, "a CPU list like \"0-3,8\"",
			 perf_record__cpus_ok, "a CPU list",
			 "digits, ',' and '-', like \"0-3,8\"", &c->cpus);
}

static int parse_key(const char *key, const json_t *v, struct perf_config *c)
{
	if (!strcmp(key, "enabled"))
		return 0;
	if (!strcmp(key, "record")) {
		if (!json_is_boolean(v)) {
			pr_err("perf: record must be true or false");
			return -EINVAL;
		}
		c->record = json_is_true(v);
		return 0;
	}
	if (!strcmp(key, "report")) {
		const char *s = json_string_value(v);

		if (!s || (strcmp(s, "here") && strcmp(s, "controller"))) {
			pr_err("perf: report must be \"here\" or "
			       "\"controller\"");
			return -EINVAL;
		}
		c->report_here = !strcmp(s, "here");
		return 0;
	}
	if (!strcmp(key, "event"))
		return parse_event(v, c);
	if (!strcmp(key, "frequency"))
		return parse_freq(v, c);
	if (!strcmp(key, "callgraph"))
		return parse_callgraph(v, c);
	if (!strcmp(key, "counters"))
		return parse_counters(v, c);
	if (!strcmp(key, "cpus"))
		return parse_cpus(v, c);
	if (!strcmp(key, "percent_limit")) {
		double l = json_number_value(v);

		if (!json_is_number(v) || !(l >= 0 && l < 100)) {
			pr_err("perf: percent_limit must be a number 0..100");
			return -EINVAL;
		}
		c->percent_limit = l;
		return 0;
	}
	pr_err("perf: unknown setting '%s' (expected enabled, record, event, "
	       "frequency, callgraph, counters, cpus, percent_limit or "
	       "report)",
	       key);
	return -EINVAL;
}

int perf_config__parse(const json_t *cfg, struct perf_config *c)
{
	const char *key;
	json_t *v;
	size_t i;
	int err;

	memset(c, 0, sizeof(*c));
	c->record = true;
	c->report_here = true;
	c->freq = PERF_DEFAULT_FREQ;
	c->callgraph = xstrdup("fp");
	c->percent_limit = PERF_DEFAULT_PERCENT_LIMIT;
	if (cfg && !json_is_object(cfg)) {
		pr_err("perf: the configuration must be an object");
		return -EINVAL;
	}
	json_object_foreach((json_t *)cfg, key, v) {
		err = parse_key(key, v, c);
		if (err)
			return err;
	}
	/* Counting is cheap and perturbs nothing: on unless told which. */
	if (!c->nr_counters) {
		for (i = 0; perf_counters_default[i]; i++)
			;
		c->counters = xcalloc(i, sizeof(*c->counters));
		for (i = 0; perf_counters_default[i]; i++)
			c->counters[i] = xstrdup(perf_counters_default[i]);
		c->nr_counters = i;
	}
	return 0;
}

void perf_config__release(struct perf_config *c)
{
	size_t i;

	for (i = 0; i < c->nr_counters; i++)
		free(c->counters[i]);
	free_all(c->counters, c->event, c->callgraph, c->cpus);
	memset(c, 0, sizeof(*c));
}
