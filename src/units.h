/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Durations, sizes and bitrates as people write them in a matrix.
 *
 * Durations: "500ms", "30s", "5m", "1h", "1h30m", "1.5s", "0". Units are
 * ms, s, m, h, each at most once and largest first. The result is in
 * milliseconds: nothing this tool times needs finer steps, and a coarser
 * unit would make "500ms" cooldowns impossible.
 *
 * Sizes follow iperf3's -l/-w: "9000", "128K", "1M", "1.5M"; K, M, G, T
 * (either case) are powers of 1024. Bitrates follow iperf3's -b: "10G",
 * "500M", "0" (unlimited); K, M, G, T are powers of 1000, in bits/s.
 * Writing them the way iperf3 reads them means a number copied from an
 * iperf3 command line means the same thing here.
 *
 * All parsers are overflow-checked, reject a result that is not a whole
 * number of milliseconds/bytes/bits, and return 0, -EINVAL (malformed) or
 * -ERANGE (too large), with a message for people in @err.
 */
#ifndef IOMMU_BENCH_UNITS_H
#define IOMMU_BENCH_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Big enough for every message the parsers write, input included. */
#define UNITS_ERR_MAX 256

int units__parse_duration(const char *s, uint64_t *ms, char *err, size_t errsz);
int units__parse_size(const char *s, uint64_t *bytes, char *err, size_t errsz);
int units__parse_bitrate(const char *s, uint64_t *bps, char *err, size_t errsz);

/*
 * Format back in the same notation, the largest units first: 5400000 ms
 * is "1h30m", 1500 is "1s500ms", 0 is "0s". Sizes use the largest unit
 * that divides exactly ("128K", "9000"), bitrates likewise ("10G").
 * Returns @buf.
 */
char *units__format_duration(uint64_t ms, char *buf, size_t size);
char *units__format_size(uint64_t bytes, char *buf, size_t size);
char *units__format_bitrate(uint64_t bps, char *buf, size_t size);

/* Long enough for any of the formats above. */
#define UNITS_FMT_MAX 48

#endif /* IOMMU_BENCH_UNITS_H */
