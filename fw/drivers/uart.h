/* UART console driver: blocking transmit; receive buffered by interrupt, read without blocking. */
#ifndef TF_DRIVERS_UART_H
#define TF_DRIVERS_UART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void uart_init(void);
void uart_putc(char c);
void uart_write(const char *s, size_t n);
/* Returns the next received byte, or -1 when none is waiting (bytes are buffered by interrupt). */
int uart_getc(void);
uint32_t uart_rx_drops(void); /* bytes lost because the receive ring was full */
/* Waits until everything written has left the transmitter. */
void uart_flush(void);

#endif
