#!/bin/sh
# Set up a fresh Debian 12 machine, build with --werror, run every test
# suite, run again under ASan/UBSan the suites that parse guest and client
# input (unit, qtest and the functional tests of suite 'sanitize'), fuzz
# each libFuzzer target briefly and print "N passed, N failed".
# Each phase's wall time goes to stderr ("test.sh: time: PHASE N s") and
# the list of them before the closing line (docs/internals.md, "CI and
# its time budget").
set -eu
cd "$(dirname "$0")/.."

begin=$(date +%s)
times=""
# timed PHASE COMMAND...: run COMMAND and say how long it took; returns
# its status.
timed() {
    phase=$1
    shift
    t0=$(date +%s)
    rc=0
    "$@" || rc=$?
    secs=$(($(date +%s) - t0))
    times="$times $phase=${secs}s"
    echo "test.sh: time: $phase $secs s (rc $rc)" >&2
    return $rc
}

timed setup sh scripts/setup-debian.sh
timed build sh scripts/build.sh build --werror -Db_sanitize=none
# Debian's kernel and busybox for the Linux guest tests (~15 s, cached);
# without them those tests skip.
timed guest sh scripts/fetch-linux-guest.sh build/guest-linux ||
    echo "test.sh: no Linux guest; the Linux guest tests will be skipped" >&2

status=0
# Everything, the functional tests that can in parallel (their
# is_parallel and priority in tests/functional/meson.build).
timed test meson test -C build --print-errorlogs || status=1

# The sanitizers where they find bugs: the unit tests, the qtests and the
# functional tests that feed the emulator command lines, config files,
# migration streams and guest code (suite 'sanitize'); not the Linux
# boots, which cost minutes under ASan and whose devices the fuzzers and
# qtests cover.
timed build-asan sh scripts/build.sh build-asan --werror \
    -Db_sanitize=address,undefined -Db_lundef=false
timed test-asan env LINUX_GUEST_DIR="$PWD/build/guest-linux" \
    ASAN_OPTIONS=detect_leaks=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    meson test -C build-asan --print-errorlogs \
    --suite unit --suite qtest --suite sanitize || status=1

# The libFuzzer targets (clang, ASan, UBSan), 20 s each (suite fuzz).
rm -f build-fuzz/meson-logs/testlog.json    # a failed build counts as one
timed fuzz sh scripts/fuzz.sh --all 20 || status=1

echo "test.sh: time:$times total=$(($(date +%s) - begin))s" >&2
python3 scripts/test-summary.py build/meson-logs/testlog.json \
    build-asan/meson-logs/testlog.json \
    build-fuzz/meson-logs/testlog.json || status=1
exit $status
