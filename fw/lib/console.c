/* Console line editing and dispatch (see console.h). In: characters. Out: echo/prompt/errors via write. */
#include "lib/console.h"

#include <string.h>

static void put(struct console *c, const char *s) { c->write(s, strlen(s)); }

void console_init(struct console *c, const struct tf_command *cmds, size_t ncmds,
                  void (*write)(const char *s, size_t n), bool echo) {
    memset(c, 0, sizeof(*c));
    c->cmds = cmds;
    c->ncmds = ncmds;
    c->write = write;
    c->echo = echo;
}

void console_prompt(struct console *c) { put(c, "tf> "); }

const struct tf_command *console_find(const struct console *c, const char *name) {
    for (size_t i = 0; i < c->ncmds; i++)
        if (strcmp(c->cmds[i].name, name) == 0) return &c->cmds[i];
    return NULL;
}

static bool is_space(char ch) { return ch == ' ' || ch == '\t'; }

int console_execute(struct console *c, char *line) {
    char *argv[TF_CONSOLE_ARGS_MAX + 1];
    int argc = 0;
    char *p = line;
    for (;;) {
        while (is_space(*p)) p++;
        if (*p == '\0') break;
        if (argc == TF_CONSOLE_ARGS_MAX) {
            put(c, "error: too many arguments\r\n");
            return c->last_status = -2;
        }
        argv[argc++] = p;
        while (*p != '\0' && !is_space(*p)) p++;
        if (*p != '\0') *p++ = '\0';
    }
    argv[argc] = NULL;
    if (argc == 0) return 0;
    if (strcmp(argv[0], "help") == 0) {
        for (size_t i = 0; i < c->ncmds; i++) {
            put(c, c->cmds[i].name);
            if (c->cmds[i].help[0]) {
                put(c, " - ");
                put(c, c->cmds[i].help);
            }
            put(c, "\r\n");
        }
        return c->last_status = 0;
    }
    const struct tf_command *cmd = console_find(c, argv[0]);
    if (cmd == NULL) {
        put(c, "error: unknown command '");
        put(c, argv[0]);
        put(c, "' (try help)\r\n");
        return c->last_status = -1;
    }
    return c->last_status = cmd->fn(argc, argv);
}

bool console_feed(struct console *c, char ch) {
    char prev = c->last;
    c->last = ch;
    if (ch == '\n' && prev == '\r') return false; /* CR LF: the CR ended the line */
    if (ch == '\r' || ch == '\n') {
        c->line[c->len] = '\0';
        c->len = 0;
        if (c->mline) {
            c->mline = false;
            if (c->machine) c->machine(c->discard ? NULL : c->line + 1);
            return true;
        }
        if (c->echo) put(c, "\r\n");
        console_execute(c, c->line);
        console_prompt(c);
        return true;
    }
    if (c->len == 0 && ch == '@' && c->machine) {
        c->mline = true;
        c->discard = false;
    }
    if (c->mline) {
        if (c->len + 1 >= TF_CONSOLE_LINE_MAX || (((unsigned char)ch < 0x20 || (unsigned char)ch > 0x7e) && ch != '\t'))
            c->discard = true;
        else
            c->line[c->len++] = ch;
        return false;
    }
    if (ch == '\b' || ch == 0x7f) {
        if (c->len > 0) {
            c->len--;
            if (c->echo) put(c, "\b \b");
        }
        return false;
    }
    if (ch == '\t') ch = ' ';
    if ((unsigned char)ch < 0x20 || (unsigned char)ch > 0x7e) return false; /* ignore other controls */
    if (c->len + 1 >= TF_CONSOLE_LINE_MAX) {
        put(c, "\a");
        return false;
    }
    c->line[c->len++] = ch;
    if (c->echo) c->write(&ch, 1);
    return false;
}
