/*
 * The human monitor: "(qemu) " command lines on a readline-mode chardev,
 * and the same commands for QMP's human-monitor-command. Commands that
 * have a QMP twin run it, so both monitors say the same thing.
 *
 * Output uses "\n" internally; like QEMU's monitor_puts(), every "\n"
 * goes out as "\r\n" (also in human-monitor-command's string).
 */
#include <string.h>

#include "config-host.h"
#include "monitor/monitor.h"
#include "system/cpus.h"
#include "system/memory.h"
#include "system/runstate.h"

/* QEMU's READLINE_CMD_BUF_SIZE: longer lines are cut. */
#define HMP_LINE_MAX 4095

typedef struct HmpCommand {
    const char *name;       /* "cont|c": the name and its aliases */
    const char *params;
    const char *help;
    void (*fn)(GString *out, const char *args);
} HmpCommand;

typedef struct MonitorHMP {
    CharBackend be;
    GString *line;          /* what the user typed so far */
    int esc_state;          /* 0, or inside an escape sequence (1: ESC) */
    bool last_cr;           /* "\r\n" is one end of line */
    bool greeted;
    bool mux_out;           /* a mux gave the input focus to someone else */
} MonitorHMP;

static GList *hmp_monitors;

static void hmp_execute(GString *out, const char *cmdline);

static void hmp_error(GString *out, Error *err)
{
    g_string_append_printf(out, "Error: %s\n", error_get_pretty(err));
    error_free(err);
}

/* Run a QMP command; on failure print its error and return NULL. */
static JsonNode *hmp_qmp(GString *out, const char *name)
{
    JsonNode *ret = NULL;
    Error *err = NULL;

    if (!qmp_run_command(name, NULL, &ret, &err)) {
        hmp_error(out, err);
        return NULL;
    }
    if (!ret) {
        ret = json_node_init_object(json_node_alloc(), json_object_new());
    }
    return ret;
}

static void hmp_simple(GString *out, const char *name)
{
    JsonNode *ret = hmp_qmp(out, name);

    if (ret) {
        json_node_unref(ret);
    }
}

static void hmp_stop(GString *out, const char *args)
{
    hmp_simple(out, "stop");
}

static void hmp_cont(GString *out, const char *args)
{
    hmp_simple(out, "cont");
}

static void hmp_quit(GString *out, const char *args)
{
    hmp_simple(out, "quit");
}

static void hmp_system_reset(GString *out, const char *args)
{
    hmp_simple(out, "system_reset");
}

static void hmp_system_powerdown(GString *out, const char *args)
{
    hmp_simple(out, "system_powerdown");
}

static void hmp_nmi(GString *out, const char *args)
{
    hmp_simple(out, "inject-nmi");
}

/* Why an HMP size argument is not a number, in QEMU's words; or NULL. */
static char *hmp_number_error(const char *cmd, const char *a,
                              const char *end)
{
    if (!*a) {
        return g_strdup("unexpected end of expression");
    }
    if (end == a) {
        return g_strdup_printf("invalid char '%c' in expression", *a);
    }
    if (*end) {
        return g_strdup_printf("%s: extraneous characters at the end of "
                               "line", cmd);
    }
    return NULL;
}

/* "balloon TARGET": the guest's new size in MiB (QEMU's HMP unit). */
static void hmp_balloon(GString *out, const char *args)
{
    g_autofree char *a = g_strstrip(g_strdup(args ? args : ""));
    g_autofree char *why = NULL;
    JsonObject *qargs;
    JsonNode *ret = NULL;
    Error *err = NULL;
    char *end;
    gint64 mib = g_ascii_strtoll(a, &end, 10);

    why = hmp_number_error("balloon", a, end);
    if (!why && (mib > G_MAXINT64 >> 20 || mib < -(G_MAXINT64 >> 20))) {
        why = g_strdup("number too large");
    }
    if (why) {
        g_string_append_printf(out, "%s\nTry \"help balloon\" for more "
                               "information\n", why);
        return;
    }
    qargs = json_object_new();
    json_object_set_int_member(qargs, "value", mib * 1024 * 1024);
    if (!qmp_run_command("balloon", qargs, &ret, &err)) {
        hmp_error(out, err);
    }
    json_object_unref(qargs);
    if (ret) {
        json_node_unref(ret);
    }
}

static void hmp_info_balloon(GString *out, const char *args)
{
    JsonNode *ret = hmp_qmp(out, "query-balloon");

    if (!ret) {
        return;
    }
    g_string_append_printf(out, "balloon: actual=%" G_GINT64_FORMAT "\n",
                           json_object_get_int_member(
                               json_node_get_object(ret), "actual") >> 20);
    json_node_unref(ret);
}

static void hmp_info_status(GString *out, const char *args)
{
    JsonNode *ret = hmp_qmp(out, "query-status");
    JsonObject *info;
    const char *status;
    bool running;

    if (!ret) {
        return;
    }
    info = json_node_get_object(ret);
    status = json_object_get_string_member(info, "status");
    running = json_object_get_boolean_member(info, "running");
    g_string_append_printf(out, "VM status: %s",
                           running ? "running" : "paused");
    if (!running && strcmp(status, "paused")) {
        g_string_append_printf(out, " (%s)", status);
    }
    g_string_append_c(out, '\n');
    json_node_unref(ret);
}

static void hmp_info_version(GString *out, const char *args)
{
    g_string_append(out, QEMU_VERSION " (" PACKAGE_STRING ")\n");
}

static void hmp_info_chardev(GString *out, const char *args)
{
    JsonNode *ret = hmp_qmp(out, "query-chardev");
    JsonArray *list;

    if (!ret) {
        return;
    }
    list = json_node_get_array(ret);
    for (guint i = 0; i < json_array_get_length(list); i++) {
        JsonObject *c = json_array_get_object_element(list, i);

        g_string_append_printf(out, "%s: filename=%s\n",
                               json_object_get_string_member(c, "label"),
                               json_object_get_string_member(c, "filename"));
    }
    json_node_unref(ret);
}

/* One BAR line of "info pci", as QEMU prints it. */
static void hmp_pci_region(GString *out, JsonObject *r)
{
    uint64_t addr = json_object_get_int_member(r, "address");
    uint64_t size = json_object_get_int_member(r, "size");

    g_string_append_printf(out, "      BAR%" G_GINT64_FORMAT ": ",
                           json_object_get_int_member(r, "bar"));
    if (!strcmp(json_object_get_string_member(r, "type"), "io")) {
        g_string_append_printf(out, "I/O at 0x%04" G_GINT64_MODIFIER "x "
                               "[0x%04" G_GINT64_MODIFIER "x].\n", addr,
                               addr + size - 1);
        return;
    }
    g_string_append_printf(out, "%d bit%s memory at 0x%08" G_GINT64_MODIFIER
                           "x [0x%08" G_GINT64_MODIFIER "x].\n",
                           json_object_get_boolean_member(r, "mem_type_64")
                           ? 64 : 32,
                           json_object_get_boolean_member(r, "prefetch")
                           ? " prefetchable" : "", addr, addr + size - 1);
}

/* "info pci": query-pci in QEMU's human layout. */
static void hmp_info_pci(GString *out, const char *args)
{
    JsonNode *ret = hmp_qmp(out, "query-pci");
    JsonArray *buses;

    if (!ret) {
        return;
    }
    buses = json_node_get_array(ret);
    for (guint b = 0; b < json_array_get_length(buses); b++) {
        JsonArray *devs = json_object_get_array_member(
            json_array_get_object_element(buses, b), "devices");

        for (guint i = 0; i < json_array_get_length(devs); i++) {
            JsonObject *d = json_array_get_object_element(devs, i);
            JsonObject *cls = json_object_get_object_member(d, "class_info");
            JsonObject *id = json_object_get_object_member(d, "id");
            JsonArray *regions = json_object_get_array_member(d, "regions");
            gint64 pin = json_object_get_int_member(d, "irq_pin");

            g_string_append_printf(out, "  Bus %2" G_GINT64_FORMAT ", device "
                                   "%3" G_GINT64_FORMAT ", function %"
                                   G_GINT64_FORMAT ":\n    ",
                                   json_object_get_int_member(d, "bus"),
                                   json_object_get_int_member(d, "slot"),
                                   json_object_get_int_member(d, "function"));
            if (json_object_has_member(cls, "desc")) {
                g_string_append(out,
                                json_object_get_string_member(cls, "desc"));
            } else {
                g_string_append_printf(out, "Class %04" G_GINT64_FORMAT,
                                       json_object_get_int_member(cls,
                                                                  "class"));
            }
            g_string_append_printf(out, ": PCI device %04" G_GINT64_MODIFIER
                                   "x:%04" G_GINT64_MODIFIER "x\n      PCI "
                                   "subsystem %04" G_GINT64_MODIFIER "x:%04"
                                   G_GINT64_MODIFIER "x\n",
                                   json_object_get_int_member(id, "vendor"),
                                   json_object_get_int_member(id, "device"),
                                   json_object_get_int_member(id,
                                       "subsystem-vendor"),
                                   json_object_get_int_member(id,
                                                              "subsystem"));
            if (pin) {
                g_string_append_printf(out, "      IRQ %" G_GINT64_FORMAT
                                       ", pin %c\n",
                                       json_object_get_int_member(d, "irq"),
                                       (char)('A' + pin - 1));
            }
            for (guint r = 0; r < json_array_get_length(regions); r++) {
                hmp_pci_region(out, json_array_get_object_element(regions, r));
            }
            g_string_append_printf(out, "      id \"%s\"\n",
                                   json_object_get_string_member(d,
                                                                 "qdev_id"));
        }
    }
    json_node_unref(ret);
}

static void hmp_info_mtree(GString *out, const char *args)
{
    memory_info_mtree(out);
}

/* The device tree, printed by hw/core (hmp_set_info_qtree()). */
static void (*info_qtree_fn)(GString *out);

void hmp_set_info_qtree(void (*fn)(GString *out))
{
    info_qtree_fn = fn;
}

static void hmp_info_qtree(GString *out, const char *args)
{
    if (info_qtree_fn) {
        info_qtree_fn(out);
    }
}

static void hmp_help(GString *out, const char *args);
static void hmp_info(GString *out, const char *args);

/* QEMU's "info registers [-a]": vCPU 0's (the monitor's CPU), or all. */
static void hmp_info_registers(GString *out, const char *args)
{
    char *a = g_strstrip(g_strdup(args ? args : ""));

    vcpus_dump(!strcmp(a, "-a") ? -1 : 0, out);
    g_free(a);
}

static const HmpCommand hmp_info_cmds[] = {
    { "balloon", "", "show balloon information", hmp_info_balloon },
    { "chardev", "", "show the character devices", hmp_info_chardev },
    { "mtree", "", "show memory tree", hmp_info_mtree },
    { "pci", "", "show PCI info", hmp_info_pci },
    { "qtree", "", "show device tree", hmp_info_qtree },
    { "registers", "[-a]", "show the cpu registers (-a: all CPUs)",
      hmp_info_registers },
    { "status", "", "show the current VM status (running|paused)",
      hmp_info_status },
    { "version", "", "show the version of QEMU", hmp_info_version },
    { NULL },
};

static const HmpCommand hmp_cmds[] = {
    { "balloon", "target", "request VM to change its memory allocation (in MB)",
      hmp_balloon },
    { "cont|c", "", "resume emulation", hmp_cont },
    { "help|?", "[cmd]", "show the help", hmp_help },
    { "info", "[subcommand]",
      "show various information about the system state", hmp_info },
    { "nmi", "", "inject an NMI", hmp_nmi },
    { "quit|q", "", "quit the emulator", hmp_quit },
    { "stop|s", "", "stop emulation", hmp_stop },
    { "system_powerdown", "", "send system power down event",
      hmp_system_powerdown },
    { "system_reset", "", "reset the system", hmp_system_reset },
    { NULL },
};

/* Does name match "cont|c"? */
static bool hmp_name_matches(const char *names, const char *name)
{
    size_t len = strlen(name);
    const char *p = names;

    while (*p) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);

        if (n == len && !strncmp(p, name, n)) {
            return true;
        }
        if (!bar) {
            break;
        }
        p = bar + 1;
    }
    return false;
}

static const HmpCommand *hmp_find(const HmpCommand *table, const char *name)
{
    for (const HmpCommand *c = table; c->name; c++) {
        if (hmp_name_matches(c->name, name)) {
            return c;
        }
    }
    return NULL;
}

static void hmp_dump_help(GString *out, const HmpCommand *table,
                          const char *prefix)
{
    for (const HmpCommand *c = table; c->name; c++) {
        g_string_append_printf(out, "%s%s %s -- %s\n", prefix, c->name,
                               c->params, c->help);
    }
}

/* Split "word rest": *word is allocated, the rest returned trimmed. */
static const char *hmp_next_word(const char *p, char **word)
{
    const char *end;

    while (g_ascii_isspace(*p)) {
        p++;
    }
    end = p;
    while (*end && !g_ascii_isspace(*end)) {
        end++;
    }
    *word = g_strndup(p, end - p);
    while (g_ascii_isspace(*end)) {
        end++;
    }
    return end;
}

static void hmp_help(GString *out, const char *args)
{
    char *word;
    const HmpCommand *c;

    hmp_next_word(args, &word);
    if (!*word) {
        hmp_dump_help(out, hmp_cmds, "");
    } else if (!strcmp(word, "info")) {
        hmp_dump_help(out, hmp_info_cmds, "info ");
    } else if ((c = hmp_find(hmp_cmds, word))) {
        g_string_append_printf(out, "%s %s -- %s\n", c->name, c->params,
                               c->help);
    } else {
        g_string_append_printf(out, "unknown command: '%s'\n", word);
    }
    g_free(word);
}

static void hmp_info(GString *out, const char *args)
{
    char *word;
    const char *rest = hmp_next_word(args, &word);
    const HmpCommand *c;

    if (!*word) {
        hmp_dump_help(out, hmp_info_cmds, "info ");
    } else if ((c = hmp_find(hmp_info_cmds, word))) {
        c->fn(out, rest);
    } else {
        /* QEMU quotes the whole command line up to the unknown word. */
        g_string_append_printf(out, "unknown command: 'info %s'\n", word);
    }
    g_free(word);
}

static void hmp_execute(GString *out, const char *cmdline)
{
    char *word;
    const char *rest = hmp_next_word(cmdline, &word);
    const HmpCommand *c;

    if (*word) {
        c = hmp_find(hmp_cmds, word);
        if (c) {
            c->fn(out, rest);
        } else {
            g_string_append_printf(out, "unknown command: '%s'\n", word);
        }
    }
    g_free(word);
}

static char *hmp_crlf(const char *text, gsize len)
{
    GString *s = g_string_sized_new(len + 16);

    for (gsize i = 0; i < len; i++) {
        if (text[i] == '\n') {
            g_string_append_c(s, '\r');
        }
        g_string_append_c(s, text[i]);
    }
    return g_string_free(s, FALSE);
}

char *hmp_run_command(const char *cmdline, Error **errp)
{
    GString *out = g_string_new(NULL);
    char *text;

    hmp_execute(out, cmdline);
    text = hmp_crlf(out->str, out->len);
    g_string_free(out, TRUE);
    return text;
}

/* ---- on a chardev ---- */

static void monitor_hmp_puts(MonitorHMP *mon, const char *text)
{
    char *wire = hmp_crlf(text, strlen(text));

    qemu_chr_fe_write(&mon->be, (const uint8_t *)wire, (int)strlen(wire));
    g_free(wire);
}

static void monitor_hmp_prompt(MonitorHMP *mon)
{
    monitor_hmp_puts(mon, "(qemu) ");
}

static void monitor_hmp_enter(MonitorHMP *mon)
{
    GString *out = g_string_new(NULL);

    monitor_hmp_puts(mon, "\n");
    hmp_execute(out, mon->line->str);
    g_string_truncate(mon->line, 0);
    monitor_hmp_puts(mon, out->str);
    g_string_free(out, TRUE);
    /* After "quit" QEMU suspends the monitor: no new prompt. */
    if (qemu_shutdown_requested() == SHUTDOWN_CAUSE_NONE) {
        monitor_hmp_prompt(mon);
    }
}

/*
 * A minimal readline: printable bytes are echoed and collected,
 * backspace/DEL erase, CR or LF (or CR LF) runs the line, escape
 * sequences (arrow keys...) are skipped.
 */
static void monitor_hmp_input(MonitorHMP *mon, uint8_t c)
{
    bool was_cr = mon->last_cr;

    mon->last_cr = false;
    if (mon->esc_state == 1) {
        mon->esc_state = (c == '[' || c == 'O') ? 2 : 0;
        return;
    }
    if (mon->esc_state == 2) {
        if (c >= 0x40 && c <= 0x7e) {
            mon->esc_state = 0;
        }
        return;
    }
    switch (c) {
    case 0x1b:
        mon->esc_state = 1;
        return;
    case '\n':
        if (was_cr) {
            return;
        }
        monitor_hmp_enter(mon);
        return;
    case '\r':
        mon->last_cr = true;
        monitor_hmp_enter(mon);
        return;
    case 0x08:
    case 0x7f:
        if (mon->line->len) {
            g_string_truncate(mon->line, mon->line->len - 1);
            qemu_chr_fe_write(&mon->be, (const uint8_t *)"\b \b", 3);
        }
        return;
    default:
        if (c >= 0x20 && mon->line->len < HMP_LINE_MAX) {
            g_string_append_c(mon->line, c);
            qemu_chr_fe_write(&mon->be, &c, 1);
        }
        return;
    }
}

static int monitor_hmp_can_read(void *opaque)
{
    return 4096;
}

static void monitor_hmp_read(void *opaque, const uint8_t *buf, int size)
{
    MonitorHMP *mon = opaque;

    for (int i = 0; i < size; i++) {
        monitor_hmp_input(mon, buf[i]);
    }
}

static void monitor_hmp_event(void *opaque, ChrEvent event)
{
    MonitorHMP *mon = opaque;

    switch (event) {
    case CHR_EVENT_OPENED:
        g_string_truncate(mon->line, 0);
        mon->esc_state = 0;
        monitor_hmp_puts(mon, "QEMU " QEMU_VERSION
                         " monitor - type 'help' for more information\n");
        if (!mon->mux_out) {
            monitor_hmp_prompt(mon);
        }
        mon->greeted = true;
        break;
    case CHR_EVENT_MUX_IN:
        mon->mux_out = false;
        if (mon->greeted) {
            monitor_hmp_prompt(mon);
        }
        break;
    case CHR_EVENT_MUX_OUT:
        mon->mux_out = true;
        break;
    case CHR_EVENT_CLOSED:
        g_string_truncate(mon->line, 0);
        mon->esc_state = 0;
        break;
    default:
        break;
    }
}

bool monitor_init_hmp(Chardev *chr, Error **errp)
{
    MonitorHMP *mon = g_new0(MonitorHMP, 1);

    if (!qemu_chr_fe_init(&mon->be, chr, errp)) {
        g_free(mon);
        return false;
    }
    mon->line = g_string_new(NULL);
    hmp_monitors = g_list_append(hmp_monitors, mon);
    qemu_chr_fe_set_handlers(&mon->be, monitor_hmp_can_read,
                             monitor_hmp_read, monitor_hmp_event, mon);
    return true;
}

void hmp_cleanup(void)
{
    for (GList *l = hmp_monitors; l; l = l->next) {
        MonitorHMP *mon = l->data;

        qemu_chr_fe_deinit(&mon->be);
        g_string_free(mon->line, TRUE);
        g_free(mon);
    }
    g_list_free(hmp_monitors);
    hmp_monitors = NULL;
}
