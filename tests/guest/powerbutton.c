/*
 * powerbutton: waits for the ACPI power button and powers off (S5), as
 * an operating system does on `virsh shutdown` (QMP system_powerdown).
 * The PM1 event and control blocks come from the ACPI FADT (the pc
 * machine has them at 0x600, SeaBIOS puts QEMU's PIIX4 elsewhere); the
 * button is polled every 10 ms, without interrupts. A line every second says it
 * still waits, so a console that attaches late sees output.
 */
#include "guest.h"

const char guest_name[] = "powerbutton";

#define PM_BASE_DEFAULT 0x600           /* without ACPI tables */
#define PWRBTN          (1u << 8)       /* in PM1_STS and PM1_EN */
#define SCI_EN          (1u << 0)
#define SLP_TYP_S5      (0u << 10)      /* the _S5 value of both tables */
#define SLP_EN          (1u << 13)

static inline uint16_t inw(uint16_t port)
{
    uint16_t v;

    asm volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static bool sig_is(const void *p, const char *sig, size_t n)
{
    const char *c = p;

    for (size_t i = 0; i < n; i++) {
        if (c[i] != sig[i]) {
            return false;
        }
    }
    return true;
}

/* The FADT through the RSDP (in the BIOS area) and the RSDT, or NULL. */
static const uint8_t *find_fadt(void)
{
    for (uintptr_t a = 0xe0000; a < 0x100000; a += 16) {
        const uint8_t *rsdp = (const uint8_t *)a;
        const uint8_t *rsdt;
        uint32_t len;

        if (!sig_is(rsdp, "RSD PTR ", 8)) {
            continue;
        }
        rsdt = (const uint8_t *)(uintptr_t)*(const uint32_t *)(rsdp + 16);
        len = *(const uint32_t *)(rsdt + 4);
        for (uint32_t off = 36; off + 4 <= len; off += 4) {
            const uint8_t *t = (const uint8_t *)(uintptr_t)
                *(const uint32_t *)(rsdt + off);

            if (sig_is(t, "FACP", 4)) {
                return t;
            }
        }
    }
    return NULL;
}

void guest_main(uint32_t magic, struct mb_info *mb)
{
    const uint8_t *fadt = find_fadt();
    uint16_t evt = fadt ? *(const uint32_t *)(fadt + 56) : PM_BASE_DEFAULT;
    uint16_t cnt = fadt ? *(const uint32_t *)(fadt + 64)
                        : PM_BASE_DEFAULT + 4;
    uint16_t PM1_STS = evt, PM1_EN = evt + 2, PM1_CNT = cnt;
    unsigned ticks = 0;

    outw(PM1_EN, PWRBTN);
    printf("powerbutton: waiting (PM1 at 0x%x)\n", evt);
    while (!(inw(PM1_STS) & PWRBTN)) {
        lapic_udelay(10000);
        if (++ticks % 100 == 0) {
            printf("powerbutton: waiting %u s\n", ticks / 100);
        }
    }
    outw(PM1_STS, PWRBTN);              /* write 1 to clear */
    printf("powerbutton: pressed, powering off\n");
    outw(PM1_CNT, SCI_EN | SLP_TYP_S5 | SLP_EN);
    guest_fail("still running after entering S5");
}
