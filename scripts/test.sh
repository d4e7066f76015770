#!/bin/sh
# Set up a fresh Debian 12 machine, build with --werror, run every test
# suite (also once under ASan/UBSan), fuzz each libFuzzer target briefly
# and print "N passed, N failed".
set -eu
cd "$(dirname "$0")/.."

sh scripts/setup-debian.sh
sh scripts/build.sh build --werror -Db_sanitize=none
sh scripts/build.sh build-asan --werror -Db_sanitize=address,undefined \
    -Db_lundef=false
# The fallback for hosts without MCL_ONFAULT, forced at build time.
sh scripts/build.sh build-noonfault --werror -Dmcl_onfault=disabled
# Debian's kernel and busybox for test-linux (~15 s, cached); without
# them that test skips.
sh scripts/fetch-linux-guest.sh build/guest-linux ||
    echo "test.sh: no Linux guest; test-linux will be skipped" >&2

status=0
meson test -C build --print-errorlogs || status=1
LINUX_GUEST_DIR=$PWD/build/guest-linux \
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    meson test -C build-asan --print-errorlogs || status=1

meson test -C build-noonfault --print-errorlogs test-memlock || status=1
# The libFuzzer targets (clang, ASan, UBSan), 20 s each (suite fuzz).
rm -f build-fuzz/meson-logs/testlog.json    # a failed build counts as one
sh scripts/fuzz.sh --all 20 || status=1

python3 scripts/test-summary.py build/meson-logs/testlog.json \
    build-asan/meson-logs/testlog.json \
    build-noonfault/meson-logs/testlog.json \
    build-fuzz/meson-logs/testlog.json || status=1
exit $status
