/* Console: line editing and command dispatch for the UART console. Transport-agnostic: characters in
 * (console_feed), text out through the write callback; commands are a table the caller supplies
 * (on the target, the TF_COMMAND entries the linker gathers; in host tests, an array).
 * Limits: a line holds TF_CONSOLE_LINE_MAX-1 characters (more are refused with a bell, never overflow);
 * a command gets at most TF_CONSOLE_ARGS_MAX arguments (more is an error).
 * Machine lines: a line whose first character is '@' belongs to the machine protocol (lib/mproto.h,
 * docs/PROTOCOL.md): it is not echoed, not edited and not followed by a prompt; when complete it goes whole
 * to the `machine` hook (set after console_init), or NULL when it was discarded: longer than the line
 * buffer, or holding a byte outside printable ASCII. */
#ifndef TF_LIB_CONSOLE_H
#define TF_LIB_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

#define TF_CONSOLE_LINE_MAX 128
#define TF_CONSOLE_ARGS_MAX 8

struct tf_command {
    const char *name;
    const char *help;
    /* argv[0] is the command name; returns 0 on success, non-zero for an error already reported. */
    int (*fn)(int argc, char **argv);
};

/* Registers a command on the target: the linker script gathers these into one table. The help texts cost about
 * 0.6 KiB of the 80 KiB RAM, which the machine protocol needed: they are compiled in only with TF_CONSOLE_HELP=1
 * (`help` lists the names otherwise; each command prints its usage when its arguments are wrong). */
#ifndef TF_CONSOLE_HELP
#define TF_CONSOLE_HELP 0
#endif
#define TF_COMMAND(name_, help_, fn_)                                                             \
    static const struct tf_command tf_command_##name_                                            \
        __attribute__((used, section("tf_commands." #name_), aligned(4))) = {#name_, TF_CONSOLE_HELP ? help_ : "", fn_}

struct console {
    char line[TF_CONSOLE_LINE_MAX];
    size_t len;
    const struct tf_command *cmds;
    size_t ncmds;
    void (*write)(const char *s, size_t n);
    bool echo;
    char last; /* previous character, to treat CR LF as one end of line */
    bool mline;   /* the current line is a machine line */
    bool discard; /* ... which is being discarded (too long or not ASCII) */
    void (*machine)(char *line); /* machine lines, without their '@'; NULL: a discarded one */
    int last_status;
};

void console_init(struct console *c, const struct tf_command *cmds, size_t ncmds,
                  void (*write)(const char *s, size_t n), bool echo);
/* Feeds one received character. Returns true when it completed a line (which was then executed). */
bool console_feed(struct console *c, char ch);
/* Splits `line` in place and runs the command. Returns the command's status; -1 for an unknown command,
 * -2 for too many arguments (both reported through write). An empty line returns 0. */
int console_execute(struct console *c, char *line);
void console_prompt(struct console *c);
/* Finds a command by name, or NULL. */
const struct tf_command *console_find(const struct console *c, const char *name);

#endif
