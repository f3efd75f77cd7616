/* The firmware's printf: the formatting the console and the boot messages use, in about a quarter of the code of
 * picolibc's integer printf (which the firmware no longer links: fmt.c defines printf on the target).
 * In: a format and its arguments. Out: characters, one call of put per character.
 * Conversions: d i u x X c s p %; flags '-' and '0'; a width and a precision (digits or '*'); length modifiers
 * hh h l z (ll, j, t and floating point are not supported: such a conversion is copied to the output as written,
 * so that the mistake shows). */
#ifndef TF_LIB_FMT_H
#define TF_LIB_FMT_H

#include <stdarg.h>
#include <stddef.h>

typedef void (*tf_fmt_put_fn)(void *ctx, char c);

/* Formats into put; returns the number of characters. */
int tf_vfmt(tf_fmt_put_fn put, void *ctx, const char *fmt, va_list ap);

/* vsnprintf on tf_vfmt: at most size - 1 characters and a NUL into s (nothing when size is 0); returns the number of
 * characters the whole output has. On the target, fmt.c's snprintf is this, so picolibc's printf is not linked. */
int tf_vsnprintf(char *s, size_t size, const char *fmt, va_list ap);

#endif
