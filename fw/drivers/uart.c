/* UART driver (see uart.h) and picolibc's stdin/stdout/stderr on it. */
#include "drivers/uart.h"

#include <stdio.h>

#include "soc.h"

static inline uint32_t rd(uint32_t reg) { return tf_read32(UART_BASE + reg); }
static inline void wr(uint32_t reg, uint32_t v) { tf_write32(UART_BASE + reg, v); }

void uart_init(void) {
    wr(UART_DIVISOR, TF_UART_DIVISOR);
    wr(UART_IRQ_ENABLE, 0);
}

void uart_putc(char c) {
    while (((rd(UART_STATUS) >> UART_STATUS_TX_FREE_SHIFT) & UART_STATUS_TX_FREE_MASK) == 0) {
    }
    wr(UART_DATA_TX, (uint8_t)c);
}

void uart_write(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) uart_putc(s[i]);
}

int uart_getc(void) {
    uint32_t v = rd(UART_DATA_RX);
    if (!((v >> UART_DATA_RX_VALID_SHIFT) & 1u)) return -1;
    return (int)(v & UART_DATA_RX_BYTE_MASK);
}

void uart_flush(void) {
    while (!((rd(UART_STATUS) >> UART_STATUS_TX_IDLE_SHIFT) & 1u)) {
    }
}

static int stdio_put(char c, FILE *f) {
    (void)f;
    if (c == '\n') uart_putc('\r');
    uart_putc(c);
    return (unsigned char)c;
}

static int stdio_get(FILE *f) {
    (void)f;
    int c;
    while ((c = uart_getc()) < 0) {
    }
    return c;
}

static FILE uart_stdio = FDEV_SETUP_STREAM(stdio_put, stdio_get, NULL, _FDEV_SETUP_RW);
FILE *const stdin = &uart_stdio;
FILE *const stdout = &uart_stdio;
FILE *const stderr = &uart_stdio;
