/*
 * triple-fault: loads an IDT with limit 0 and raises #UD.  Delivering #UD
 * faults (#GP), delivering that faults (#DF), and that one shuts the CPU
 * down.  UD2 rather than INT3: kvm_pvm cannot emulate INT3 at all, which
 * would test that instead.  The emulator should reset, or exit with -no-reboot; a host that
 * cannot report the shutdown shows an internal error.  The line announcing
 * the fault is the last one a correct run prints.
 */
#include "guest.h"

const char guest_name[] = "triple-fault";

void guest_main(uint32_t magic, struct mb_info *mb)
{
    printf("triple-fault: loading an empty IDT and raising #UD\n");
    idt_load_empty();
    asm volatile("ud2");
    guest_fail("still running after the triple fault");
}
