/* UART console driver: blocking transmit, non-blocking receive (polled, or buffered by interrupt). */
#ifndef TF_DRIVERS_UART_H
#define TF_DRIVERS_UART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void uart_init(void);
void uart_putc(char c);
void uart_write(const char *s, size_t n);
/* Returns the next received byte, or -1 when none is waiting. */
int uart_getc(void);
/* Waits until everything written has left the transmitter. */
void uart_flush(void);

#endif
