/*
 * cpubench: a CPU-bound workload for comparing CPU emulators
 * (bench/tcg.py): per round, a sieve of Eratosthenes over 2^20 numbers,
 * a bitwise CRC-32 over 64 KiB, memcpy/memset (rep movsb/stosb) and
 * hand-written copy loops, and an integer mix (multiply, divide, shifts,
 * rotates, bit scans, a jump table, indirect calls).  It prints one
 * checksum per part, so two emulators that agree on the output did the
 * same work.  iters=N (default 2) sets the rounds; the work runs at CPL 3
 * (run_user), which some KVM hosts (kvm_pvm) run natively and CPL 0 not.
 * Only general-purpose registers are used (the kit builds with
 * -mgeneral-regs-only), so the x87/SSE-less software CPU runs it too.
 * The work area is RAM at 16-18 MiB, outside the image (no .bss to zero).
 */
#include "trial.h"

const char guest_name[] = "cpubench";

#define WORK_BASE   (16 * MiB)
#define SIEVE_N     (1u << 20)
#define SIEVE_PRIMES 82025u             /* primes below 2^20 */
#define BUF_SIZE    (64 * 1024u)

static uint8_t *const sieve = (uint8_t *)(uintptr_t)WORK_BASE;
static uint8_t *const buf_a = (uint8_t *)(uintptr_t)(WORK_BASE + SIEVE_N);
static uint8_t *const buf_b = (uint8_t *)(uintptr_t)(WORK_BASE + SIEVE_N +
                                                     BUF_SIZE);

static struct {
    uint64_t rounds, primes;
    uint32_t crc;
    uint64_t copy, mix;
    uint32_t crc_check;
} result;

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 0x100000001b3ul;
    }
    return h;
}

static uint32_t run_sieve(void)
{
    uint32_t count = 0;

    memset(sieve, 1, SIEVE_N);
    sieve[0] = sieve[1] = 0;
    for (uint32_t i = 2; i * i < SIEVE_N; i++) {
        if (sieve[i]) {
            for (uint32_t j = i * i; j < SIEVE_N; j += i) {
                sieve[j] = 0;
            }
        }
    }
    for (uint32_t i = 0; i < SIEVE_N; i++) {
        count += sieve[i];
    }
    return count;
}

/* CRC-32 (IEEE 802.3, reflected), one bit at a time: branchy on purpose. */
static uint32_t crc32_bitwise(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++) {
            crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
        }
    }
    return ~crc;
}

static uint64_t copy_loops(uint64_t seed)
{
    uint64_t *a = (uint64_t *)buf_a, *b = (uint64_t *)buf_b;
    uint64_t h = 0xcbf29ce484222325ul;

    memcpy(buf_b, buf_a, BUF_SIZE);                 /* rep movsb */
    h = fnv1a(h, buf_b + (seed & 0xfff), 256);
    /* A qword loop gcc cannot turn into a memcpy call. */
    for (size_t i = 0; i < BUF_SIZE / 8; i++) {
        b[i] = (a[i] << 3 | a[i] >> 61) ^ i;
    }
    /* Overlapping byte moves, backwards. */
    for (size_t i = BUF_SIZE - 1; i >= 7; i--) {
        buf_b[i] = buf_b[i - 7] + (uint8_t)i;
    }
    h = fnv1a(h, buf_b + 1000, 512);
    memset(buf_b, (int)(seed & 0xff), BUF_SIZE / 2);    /* rep stosb */
    for (size_t i = BUF_SIZE / 2; i < BUF_SIZE; i += 8) {
        *(uint64_t *)(buf_b + i) = seed;
    }
    return fnv1a(h, buf_b + BUF_SIZE / 2 - 128, 256);
}

static uint64_t op_add(uint64_t a, uint64_t b) { return a + b; }
static uint64_t op_sub(uint64_t a, uint64_t b) { return a - b * 3; }
static uint64_t op_xor(uint64_t a, uint64_t b) { return a ^ (b >> 5); }
static uint64_t op_rol(uint64_t a, uint64_t b)
{
    unsigned r = b & 63;

    return r ? a << r | a >> (64 - r) : a;
}

static uint64_t (*const ops[4])(uint64_t, uint64_t) = {
    op_add, op_sub, op_xor, op_rol,
};

static unsigned bit_count(uint64_t x)
{
    unsigned n = 0;

    while (x) {
        x &= x - 1;
        n++;
    }
    return n;
}

static uint64_t int_mix(uint64_t seed, unsigned steps)
{
    uint64_t s = seed | 1, acc = 0;

    for (unsigned i = 0; i < steps; i++) {
        uint64_t x = xorshift(&s);
        uint64_t d = (x >> 40) | 1;
        unsigned __int128 p = (unsigned __int128)x * (acc | 3);

        acc += (uint64_t)(p >> 64) ^ (uint64_t)p;
        acc ^= x / d + x % d;
        acc += (uint64_t)((int64_t)acc / -(int64_t)((d & 0xffff) | 3));
        acc += __builtin_ctzll(x | 1ul << 63) * 3 +
               (63 - __builtin_clzll(x | 1));
        acc = ops[x & 3](acc, x);
        switch ((x >> 8) & 7) {
        case 0: acc += 0x11; break;
        case 1: acc ^= acc >> 3; break;
        case 2: acc -= x & 0xffff; break;
        case 3: acc = ~acc; break;
        case 4: acc *= 5; break;
        case 5: acc += bit_count(x); break;
        case 6: acc = (uint32_t)acc * (uint64_t)(uint32_t)x; break;
        default: acc ^= (int64_t)(int32_t)x; break;
        }
        /* Collatz steps from a small number: short, branchy loops. */
        for (uint64_t c = (x & 0xff) + 1; c != 1;) {
            c = c & 1 ? 3 * c + 1 : c >> 1;
            acc++;
        }
    }
    return acc;
}

static uint64_t bench(uint64_t iters)
{
    static const char check[] = "123456789";
    uint64_t s = 0x9e3779b97f4a7c15ul;

    result.crc_check = crc32_bitwise(0, (const uint8_t *)check, 9);
    for (uint64_t r = 0; r < iters; r++) {
        uint32_t primes = run_sieve();

        if (primes != SIEVE_PRIMES) {
            return r + 1;
        }
        result.primes += primes;
        for (size_t i = 0; i < BUF_SIZE; i += 8) {
            *(uint64_t *)(buf_a + i) = xorshift(&s);
        }
        result.crc = crc32_bitwise(result.crc, buf_a, BUF_SIZE);
        result.copy ^= copy_loops(s) + r;
        result.mix += int_mix(s ^ r, 200000);
        result.rounds++;
    }
    return 0;
}

void guest_main(uint32_t magic, struct mb_info *mb)
{
    uint64_t iters = option_u64(mb, "iters", 2);

    printf("cpubench: %lu rounds\n", iters);
    uint64_t bad = run_user(bench, iters);
    if (result.crc_check != 0xcbf43926) {
        guest_fail("crc32(\"123456789\") = 0x%x, expected 0xcbf43926",
                   result.crc_check);
    }
    if (bad) {
        guest_fail("round %lu: the sieve found %lu primes in all, "
                   "expected %u per round", bad - 1, result.primes,
                   SIEVE_PRIMES);
    }
    printf("cpubench: sieve: %lu primes below %u in %lu rounds\n",
           result.primes, SIEVE_N, result.rounds);
    printf("cpubench: crc32: 0x%08x\n", result.crc);
    printf("cpubench: copy: 0x%016lx\n", result.copy);
    printf("cpubench: integer mix: 0x%016lx\n", result.mix);
    guest_pass();
}
