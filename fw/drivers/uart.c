/* UART driver (see uart.h) and where printf's output goes (lib/fmt.h tf_stdout_write). */
#include "drivers/uart.h"

#include "drivers/csr.h"
#include "drivers/sysctrl.h"
#include "lib/bytering.h"
#include "lib/fmt.h"
#include "soc.h"

/* Received bytes, moved out of the 16-byte hardware FIFO by the receive interrupt so that typing (or a
 * test's scripted input at the simulation's fast bit rate) is not lost while the main loop is busy. */
#define UART_RX_RING 256u
static volatile uint8_t rx_ring[UART_RX_RING];
static volatile uint32_t rx_head, rx_tail, rx_ring_drops;
static bool tx_line_start = true; /* the last byte sent ended a line (or none was sent) */

static inline uint32_t rd(uint32_t reg) { return tf_read32(UART_BASE + reg); }
static inline void wr(uint32_t reg, uint32_t v) { tf_write32(UART_BASE + reg, v); }

static void uart_rx(void) {
    uint32_t v;
    while ((v = rd(UART_DATA_RX)) >> UART_DATA_RX_VALID_SHIFT & 1u) {
        uint32_t next = (rx_head + 1) % UART_RX_RING;
        if (next == rx_tail) { rx_ring_drops++; continue; }
        rx_ring[rx_head] = (uint8_t)(v & UART_DATA_RX_BYTE_MASK);
        rx_head = next;
    }
}

static inline uint32_t tx_fifo_free(void) { return (rd(UART_STATUS) >> UART_STATUS_TX_FREE_SHIFT) & UART_STATUS_TX_FREE_MASK; }

#define IRQ_RX 1u /* UART_IRQ_ENABLE: while the receive FIFO is not empty */
#define IRQ_TX 2u /* while the transmit FIFO is empty */

#if UART_TX_RING
/* Console output that finds the transmit FIFO full waits in a ring of UART_TX_RING bytes (fw/Makefile: where the RAM
 * has room), and the UART's interrupt refills the FIFO from it each time the FIFO runs empty, so that printing a line
 * does not hold the CPU for the line's time on the wire (100 cycles a character in the simulation, 4,340 at 115200
 * baud on the Zynq boards' 50 MHz): the messages that come after it are not held up. A full ring waits for room, as the
 * unbuffered console always does: nothing is dropped.
 * One producer (uart_write, never called from an interrupt handler but for a fatal trap's report, which ends the run)
 * and one consumer (the interrupt; uart_write itself only while interrupts are off): the producer writes a run's
 * bytes, then head, and enables the interrupt once the run is queued (or sooner, when the ring is full); the handler
 * moves bytes, then tail, and turns its interrupt off when the ring is empty. Both run on the one core, the handler whole between two of the producer's instructions. */
_Static_assert((UART_TX_RING & (UART_TX_RING - 1)) == 0, "UART_TX_RING: a power of two");
static uint8_t tx_buf[UART_TX_RING];
static bytering_t tx_ring;
static uint32_t tx_waits; /* times a write found the ring full and waited for room */
static void tx_fifo_put(uint8_t c) { wr(UART_DATA_TX, c); }

/* What the transmit FIFO has room for, from the ring; its interrupt off once the ring is empty. */
static void tx_refill(void) {
    bytering_drain(&tx_ring, tx_fifo_free(), tx_fifo_put);
    if (!bytering_used(&tx_ring)) wr(UART_IRQ_ENABLE, IRQ_RX);
}

static void uart_irq(void) {
    uart_rx();
    tx_refill();
}

/* Nothing queued: straight into the FIFO while it has room (an interrupt meanwhile finds the ring empty: the order
 * holds). What finds the FIFO full takes the ring, so that the interrupt comes once per FIFO's worth; once a byte is
 * queued, the rest of the run follows it through the ring. */
void uart_write(const char *s, size_t n) {
    if (!n) return;
    tx_line_start = s[n - 1] == '\n';
    BYTERING_ORDER(); /* tail as the handler left it */
    if (!bytering_used(&tx_ring)) {
        for (uint32_t room = tx_fifo_free(); n && room; n--, room--) wr(UART_DATA_TX, (uint8_t)*s++);
        if (!n) return;
    }
    for (;;) {
        uint32_t k = bytering_write(&tx_ring, (const uint8_t *)s, n);
        s += k;
        n -= k;
        if (!n) break;
        tx_waits++; /* the ring is full */
        wr(UART_IRQ_ENABLE, IRQ_RX | IRQ_TX); /* what is queued so far must move for room to come */
        do {
            if (!(csr_read(mstatus) & MSTATUS_MIE)) tx_refill(); /* no interrupt can come: move them here */
            BYTERING_ORDER();
        } while (bytering_full(&tx_ring));
    }
    BYTERING_ORDER(); /* the bytes and head stored before the interrupt can look at them */
    wr(UART_IRQ_ENABLE, IRQ_RX | IRQ_TX);
}

uint32_t uart_tx_waits(void) { return tx_waits; }
uint32_t uart_tx_held(void) {
    BYTERING_ORDER();
    return bytering_used(&tx_ring);
}
#else
static void uart_irq(void) { uart_rx(); }

void uart_write(const char *s, size_t n) {
    if (!n) return;
    tx_line_start = s[n - 1] == '\n';
    while (n) {
        uint32_t room;
        while ((room = tx_fifo_free()) == 0) {
        }
        for (; n && room; n--, room--) wr(UART_DATA_TX, (uint8_t)*s++);
    }
}
#endif

/* fw/Makefile UART_DIVISOR: another bit rate than the SoC's default (the simulation at a board's console speed). */
#ifndef TF_UART_DIVISOR_FW
#define TF_UART_DIVISOR_FW TF_UART_DIVISOR
#endif

void uart_init(void) {
    wr(UART_DIVISOR, TF_UART_DIVISOR_FW);
    rx_head = rx_tail = 0;
#if UART_TX_RING
    bytering_init(&tx_ring, tx_buf, UART_TX_RING, 0);
#endif
    wr(UART_IRQ_ENABLE, IRQ_RX);
    irq_attach(TF_IRQ_UART, uart_irq);
    irq_global_enable();
}

bool uart_at_line_start(void) { return tx_line_start; }

int uart_getc(void) {
    if (rx_tail == rx_head) return -1;
    int c = rx_ring[rx_tail];
    rx_tail = (rx_tail + 1) % UART_RX_RING;
    return c;
}

uint32_t uart_rx_drops(void) { return rx_ring_drops; }

void uart_flush(void) {
#if UART_TX_RING
    while (uart_tx_held())
        if (!(csr_read(mstatus) & MSTATUS_MIE)) tx_refill();
#endif
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

/* printf's output (lib/fmt.c): into the capture buffer while there is one, else to the UART with a CR
 * before each LF, a line's run at a time. */
void tf_stdout_write(const char *s, size_t n) {
    if (cap_buf) {
        for (; n; n--, s++) {
            char c = *s;
            if (c == '\n') cap_len = (size_t)-1; /* the next character starts a new line */
            else if (c != '\r') {
                if (cap_len == (size_t)-1) cap_len = 0;
                if (cap_len + 1 < cap_max) cap_buf[cap_len++] = c, cap_buf[cap_len] = '\0';
            }
        }
        return;
    }
    while (n) {
        size_t k = 0;
        while (k < n && s[k] != '\n') k++;
        uart_write(s, k);
        if (k == n) return;
        uart_write("\r\n", 2);
        s += k + 1;
        n -= k + 1;
    }
}
