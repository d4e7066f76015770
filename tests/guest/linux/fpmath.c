/*
 * A Linux userspace program for the Linux guest tests: double and long
 * double arithmetic whose printed results depend only on the CPU's
 * IEEE-754 and x87 results, built static with the host's gcc at test
 * time. The test runs it on the host and in the guest; the outputs must
 * be identical.
 *
 * Only operations whose results do not depend on which glibc variant
 * runs are used for double (+ - * /, sqrt, conversions: glibc picks
 * FMA versions of sin or exp on hosts that have FMA, and the guest CPU
 * does not offer it); the long double functions are glibc's x87 code,
 * the same everywhere.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Keep the compiler from folding the inputs at build time. */
static volatile double vone = 1.0, vthree = 3.0, vtiny = 1e-310;
static volatile long double lone = 1.0L;

int main(void)
{
    double h = 0, x = 2.0, d = vone / vthree, t = vtiny;
    long double lh = 0, lx = lone * 2, lpi;
    long long sum = 0;
    float f = (float)d;

    for (int i = 1; i <= 100000; i++) {
        h += vone / i;
        lh += lone / i;
    }
    for (int i = 0; i < 6; i++) {
        x = 0.5 * (x + 2.0 / x);                /* Newton's sqrt(2) */
    }
    for (int i = 0; i < 1000; i++) {
        sum += (long long)(sqrt((double)i) * 1000.0);
    }
    lpi = 4 * atanl(lone);
    printf("fpmath: harmonic(1e5) %.17g %a\n", h, h);
    printf("fpmath: harmonic(1e5) long %.21Lg\n", lh);
    printf("fpmath: newton sqrt2 %.17g sqrt %.17g\n", x, sqrt(2.0 * vone));
    printf("fpmath: third %a float %a denormal*3 %a\n", d, (double)f,
           t * vthree);
    printf("fpmath: sum isqrt %lld llrint %lld\n", sum, llrint(d * 1e15));
    printf("fpmath: pi long %.21Lg sinl %.21Lg\n", lpi, sinl(lpi / 6));
    printf("fpmath: expl %.21Lg logl %.21Lg powl %.21Lg\n", expl(lone),
           logl(lx), powl(lx, lone / 3));
    printf("fpmath: sqrtl %.21Lg ldbl_eps %Lg\n", sqrtl(lx), LDBL_EPSILON);
    printf("fpmath: rint %.1f %.1f %.1f overflow %g nan %d\n",
           rint(2.5 * vone), nearbyint(-3.5 * vone), floor(-0.5 * vone),
           DBL_MAX * vthree, isnan(sqrt(-vone)) != 0);
    return 0;
}
