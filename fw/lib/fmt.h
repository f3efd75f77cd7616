/* The firmware's printf: the formatting the console and the boot messages use, in about a quarter of the code of
 * picolibc's integer printf (which the firmware no longer links: fmt.c defines printf on the target).
 * In: a format and its arguments. Out: characters, in runs: one call of write per run of the format's plain text, per
 * converted value and per sign or prefix (a width's padding one character a call), so that a sink pays its call once a
 * run, not once a character.
 * Conversions: d i u x X c s p %; flags '-' and '0'; a width and a precision (digits or '*'); length modifiers
 * hh h l z (ll, j, t and floating point are not supported: such a conversion is copied to the output as written,
 * so that the mistake shows). */
#ifndef TF_LIB_FMT_H
#define TF_LIB_FMT_H

#include <stdarg.h>
#include <stddef.h>

typedef void (*tf_fmt_write_fn)(void *ctx, const char *s, size_t n);

/* Formats into write (n is never 0); returns the number of characters. */
int tf_vfmt(tf_fmt_write_fn write, void *ctx, const char *fmt, va_list ap);

/* vsnprintf on tf_vfmt: at most size - 1 characters and a NUL into s (nothing when size is 0); returns the number of
 * characters the whole output has. On the target, fmt.c's snprintf is this, so picolibc's printf is not linked. */
int tf_vsnprintf(char *s, size_t size, const char *fmt, va_list ap);

/* Where printf's output goes on the target: the console driver's (drivers/uart.c). */
void tf_stdout_write(const char *s, size_t n);

#endif
