/* UART console driver: receive buffered by interrupt, read without blocking; transmit straight into the UART's FIFO,
 * and when it is full into a ring that the UART's interrupt drains, where the build gives it one (UART_TX_RING bytes,
 * fw/Makefile), else waiting for the FIFO. */
#ifndef TF_DRIVERS_UART_H
#define TF_DRIVERS_UART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void uart_init(void);
void uart_write(const char *s, size_t n);
/* Returns the next received byte, or -1 when none is waiting (bytes are buffered by interrupt). */
int uart_getc(void);
uint32_t uart_rx_drops(void); /* bytes lost because the receive ring was full */
/* True when the last byte written ended a line (the machine protocol's lines start on a line of their own). */
bool uart_at_line_start(void);
/* While buf is not NULL, printf's output (not uart_write's) goes into buf instead of the UART: its last line,
 * cut to max-1 characters and NUL-terminated. uart_capture(NULL, 0) ends it. (The machine protocol runs
 * console commands for a request and answers with what they printed.) */
void uart_capture(char *buf, size_t max);
/* Waits until everything written has left the transmitter. */
void uart_flush(void);
#ifndef UART_TX_RING
#define UART_TX_RING 0
#endif
#if UART_TX_RING
uint32_t uart_tx_waits(void); /* times a write found the ring full and waited for room */
uint32_t uart_tx_held(void);  /* bytes in the ring now */
#endif

#endif
