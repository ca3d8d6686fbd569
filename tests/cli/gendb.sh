# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by the compare, report and regress tests after lib.sh:
# t_gendb ARGS... runs the results-database generator (tests/gendb.h,
# built as the unit test test-gendb beside the binary under test), which
# writes through the store API what a run would write.

T_GENDB=
for g in "${GENDB:-}" "$(dirname "$IOMMU_BENCH")/tests/test-gendb" \
	"$(dirname "$IOMMU_BENCH")/.output/obj/tests/test-gendb"; do
	if [ -n "$g" ] && [ -x "$g" ]; then
		T_GENDB=$g
		break
	fi
done
if [ -z "$T_GENDB" ]; then
	echo "1..0 # SKIP test-gendb is not built (make check builds it)"
	exit 0
fi

t_gendb() {
	"$T_GENDB" "$@" >"$T_TMP/gendb.out" 2>&1 || {
		t_diag "test-gendb $* failed:" "$(cat "$T_TMP/gendb.out")"
		return 1
	}
}
