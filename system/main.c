/*
 * qemu-system-x86_64: build, run, tear down. The only place the process
 * decides its exit status.
 */
#include "system/main-loop.h"
#include "system/vl.h"

int main(int argc, char **argv)
{
    int status = qemu_init(argc, argv);

    if (status < 0) {
        status = qemu_main_loop();
    }
    qemu_cleanup();
    return status;
}
