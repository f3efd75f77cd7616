/* The firmware's printf (see fmt.h). On the target this file also defines printf, snprintf, putchar and puts
 * themselves, so that the linker takes them instead of picolibc's (the integer printf is 1.9 KiB of uncompressed
 * RV32IM code; this is about 0.5 KiB) and the firmware has no stdio stream: its output goes to the console driver a
 * run at a time (drivers/uart.c tf_stdout_write). */
#include "lib/fmt.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/udiv.h"

struct out {
    tf_fmt_write_fn write;
    void *ctx;
    int n;
};

static void emit(struct out *o, const char *s, int n) {
    if (n <= 0) return;
    o->write(o->ctx, s, (size_t)n);
    o->n += n;
}

static void pad(struct out *o, char c, int k) {
    for (; k > 0; k--) emit(o, &c, 1);
}

/* Digits or '*' (an int argument, which may be negative): a width or a precision. */
static int number(const char **fmt, va_list *ap) {
    int v = 0;
    if (**fmt == '*') {
        (*fmt)++;
        return va_arg(*ap, int);
    }
    while (**fmt >= '0' && **fmt <= '9') v = v * 10 + (*(*fmt)++ - '0');
    return v;
}

int tf_vfmt(tf_fmt_write_fn write, void *ctx, const char *fmt, va_list ap_in) {
    struct out o = {write, ctx, 0};
    va_list ap;
    va_copy(ap, ap_in);
    for (; *fmt; fmt++) {
        const char *spec = fmt;
        if (*fmt != '%') {
            while (fmt[1] && fmt[1] != '%') fmt++; /* a run of plain text */
            emit(&o, spec, (int)(fmt - spec + 1));
            continue;
        }
        fmt++;
        bool left = false, zero = false;
        for (;; fmt++) {
            if (*fmt == '-') left = true;
            else if (*fmt == '0') zero = true;
            else break;
        }
        int width = number(&fmt, &ap), prec = -1;
        if (width < 0) left = true, width = -width; /* a negative '*' width: left-justified */
        if (*fmt == '.') {
            fmt++;
            prec = number(&fmt, &ap);
            if (prec < 0) prec = -1; /* a negative '*' precision: as if none */
        }
        int len = 0; /* 1: long (or size_t), -1: short, -2: char */
        if (*fmt == 'l') len = 1, fmt++;
        else if (*fmt == 'z') len = sizeof(size_t) == sizeof(long) ? 1 : 0, fmt++;
        else
            while (*fmt == 'h') len--, fmt++;
        char c = *fmt, buf[3 * sizeof(long)];
        const char *s = buf, *prefix = "";
        int n = 0, zeros = 0;
        if (c == 'd' || c == 'i' || c == 'u' || c == 'x' || c == 'X' || c == 'p') {
            unsigned long v;
            if (c == 'd' || c == 'i') {
                long sv = len == 1 ? va_arg(ap, long) : va_arg(ap, int);
                sv = len == -1 ? (short)sv : len == -2 ? (signed char)sv : sv;
                v = sv < 0 ? 0ul - (unsigned long)sv : (unsigned long)sv;
                if (sv < 0) prefix = "-";
            } else if (c == 'p') {
                v = (unsigned long)(uintptr_t)va_arg(ap, void *);
                prefix = "0x";
            } else {
                v = len == 1 ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int);
                v = len == -1 ? (unsigned short)v : len == -2 ? (unsigned char)v : v;
            }
            unsigned base = c == 'x' || c == 'X' || c == 'p' ? 16 : 10;
            const char *digits = c == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
            char *p = buf + sizeof buf;
            if (v || prec != 0) /* precision 0 prints no digit for 0 */
                do {
                    unsigned long q = base == 16 ? v >> 4 : v <= UINT32_MAX ? tf_div10((uint32_t)v) : v / 10u;
                    *--p = digits[v - q * base];
                    v = q;
                } while (v);
            s = p;
            n = (int)(buf + sizeof buf - p);
            if (prec >= 0) zeros = prec - n;
            else if (zero && !left) zeros = width - (int)strlen(prefix) - n;
        } else if (c == 'c') {
            buf[0] = (char)va_arg(ap, int);
            n = 1;
        } else if (c == 's') {
            s = va_arg(ap, const char *);
            if (!s) s = "(null)";
            while ((prec < 0 || n < prec) && s[n]) n++;
        } else if (c == '%') {
            buf[0] = '%';
            n = 1;
        } else { /* not supported (or the format ends): copied as written */
            emit(&o, spec, (int)(fmt - spec));
            if (!c) break;
            emit(&o, fmt, 1);
            continue;
        }
        int npre = (int)strlen(prefix);
        if (zeros < 0) zeros = 0;
        int fill = width - npre - zeros - n;
        if (!left) pad(&o, ' ', fill);
        emit(&o, prefix, npre);
        pad(&o, '0', zeros);
        emit(&o, s, n);
        if (left) pad(&o, ' ', fill);
    }
    va_end(ap);
    return o.n;
}

struct sbuf {
    char *s;
    size_t size, n;
};

static void write_buf(void *ctx, const char *s, size_t n) {
    struct sbuf *b = ctx;
    if (b->n + 1 < b->size) {
        size_t room = b->size - 1 - b->n;
        memcpy(b->s + b->n, s, n < room ? n : room);
    }
    b->n += n;
}

int tf_vsnprintf(char *s, size_t size, const char *fmt, va_list ap) {
    struct sbuf b = {s, size, 0};
    int n = tf_vfmt(write_buf, &b, fmt, ap);
    if (size) s[b.n < size ? b.n : size - 1] = '\0';
    return n;
}

#ifndef TF_HOST
#include <stdio.h>

static void write_stdout(void *ctx, const char *s, size_t n) {
    (void)ctx;
    tf_stdout_write(s, n);
}

int printf(const char *restrict fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = tf_vfmt(write_stdout, NULL, fmt, ap);
    va_end(ap);
    return n;
}

/* What the compiler makes of printf("x") and printf("text\n"): the same way out, not stdio's. */
#undef putchar
int putchar(int c) {
    char ch = (char)c;
    tf_stdout_write(&ch, 1);
    return (unsigned char)c;
}

int puts(const char *s) {
    tf_stdout_write(s, strlen(s));
    tf_stdout_write("\n", 1);
    return 1;
}

int snprintf(char *restrict s, size_t size, const char *restrict fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = tf_vsnprintf(s, size, fmt, ap);
    va_end(ap);
    return n;
}
#endif
