/* UART driver (see uart.h) and picolibc's stdin/stdout/stderr on it. */
#include "drivers/uart.h"

#include <stdio.h>

#include "drivers/csr.h"
#include "drivers/sysctrl.h"
#include "soc.h"

/* Received bytes, moved out of the 16-byte hardware FIFO by the receive interrupt so that typing (or a
 * test's scripted input at the simulation's fast bit rate) is not lost while the main loop is busy. */
#define UART_RX_RING 256u
static volatile uint8_t rx_ring[UART_RX_RING];
static volatile uint32_t rx_head, rx_tail, rx_ring_drops;
static bool tx_line_start = true; /* the last byte sent ended a line (or none was sent) */

static inline uint32_t rd(uint32_t reg) { return tf_read32(UART_BASE + reg); }
static inline void wr(uint32_t reg, uint32_t v) { tf_write32(UART_BASE + reg, v); }

static void uart_rx_irq(void) {
    uint32_t v;
    while ((v = rd(UART_DATA_RX)) >> UART_DATA_RX_VALID_SHIFT & 1u) {
        uint32_t next = (rx_head + 1) % UART_RX_RING;
        if (next == rx_tail) { rx_ring_drops++; continue; }
        rx_ring[rx_head] = (uint8_t)(v & UART_DATA_RX_BYTE_MASK);
        rx_head = next;
    }
}

void uart_init(void) {
    wr(UART_DIVISOR, TF_UART_DIVISOR);
    rx_head = rx_tail = 0;
    wr(UART_IRQ_ENABLE, 1); /* receive FIFO not empty */
    irq_attach(TF_IRQ_UART, uart_rx_irq);
    irq_global_enable();
}

void uart_putc(char c) {
    while (((rd(UART_STATUS) >> UART_STATUS_TX_FREE_SHIFT) & UART_STATUS_TX_FREE_MASK) == 0) {
    }
    wr(UART_DATA_TX, (uint8_t)c);
    tx_line_start = c == '\n';
}

bool uart_at_line_start(void) { return tx_line_start; }

void uart_write(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) uart_putc(s[i]);
}

int uart_getc(void) {
    if (rx_tail == rx_head) return -1;
    int c = rx_ring[rx_tail];
    rx_tail = (rx_tail + 1) % UART_RX_RING;
    return c;
}

uint32_t uart_rx_drops(void) { return rx_ring_drops; }

void uart_flush(void) {
    while (!((rd(UART_STATUS) >> UART_STATUS_TX_IDLE_SHIFT) & 1u)) {
    }
}

/* printf's output goes to the capture buffer while there is one: its last line is kept (uart_capture). */
static char *cap_buf;
static size_t cap_len, cap_max;

void uart_capture(char *buf, size_t max) {
    cap_buf = buf;
    cap_max = max;
    cap_len = 0;
    if (buf) buf[0] = '\0';
}

static int stdio_put(char c, FILE *f) {
    (void)f;
    if (cap_buf) {
        if (c == '\n') cap_len = (size_t)-1; /* the next character starts a new line */
        else if (c != '\r') {
            if (cap_len == (size_t)-1) cap_len = 0;
            if (cap_len + 1 < cap_max) cap_buf[cap_len++] = c, cap_buf[cap_len] = '\0';
        }
        return (unsigned char)c;
    }
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
