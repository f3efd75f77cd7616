/* A byte queue in a caller's buffer of a power-of-two size, for one producer and one consumer (the console's
 * transmit ring, drivers/uart.c: the consumer there is an interrupt handler, which runs whole between two of the
 * producer's instructions on the one core; write and drain store in the order that makes that safe).
 * In: a run of bytes, as many as there is room for (bytering_write). Out: the oldest bytes first, moved to a sink as
 * many at a time as the sink has room for (bytering_drain). The head and tail count every byte put and taken since
 * init and wrap at 2^32: head - tail is what is held, whatever the wrap. */
#ifndef TF_LIB_BYTERING_H
#define TF_LIB_BYTERING_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    uint8_t *buf;
    uint32_t size; /* a power of two */
    uint32_t head; /* bytes put since init (mod 2^32): written by the producer only */
    uint32_t tail; /* bytes taken since init (mod 2^32): written by the consumer only */
} bytering_t;

/* start: where the counts begin (0; the host tests start near 2^32 to cross the wrap). */
static inline void bytering_init(bytering_t *r, uint8_t *buf, uint32_t size, uint32_t start)
{
    r->buf = buf;
    r->size = size;
    r->head = r->tail = start;
}

static inline uint32_t bytering_used(const bytering_t *r) { return r->head - r->tail; }
static inline bool bytering_full(const bytering_t *r) { return r->head - r->tail == r->size; }

/* Stores in program order: a consumer in an interrupt handler must never see a count before what it counts (the
 * compiler is free to store `head` before the byte of `buf[head++] = c`, and did: the console lost and garbled
 * bytes). */
#define BYTERING_ORDER() __asm__ volatile("" ::: "memory")

/* Puts as many of the n bytes at s as there is room for, in order; returns how many. The bytes are stored before the
 * head that shows them (one store of head for the run). */
static inline uint32_t bytering_write(bytering_t *r, const uint8_t *s, uint32_t n)
{
    uint32_t h = r->head, mask = r->size - 1u, room = r->size - (h - r->tail);
    uint8_t *buf = r->buf;
    if (n > room) n = room;
    for (uint32_t i = 0; i < n; i++) buf[(h + i) & mask] = s[i];
    BYTERING_ORDER();
    r->head = h + n;
    return n;
}

/* Moves the oldest bytes, at most room of them, to sink in order; returns how many it moved. The bytes are read
 * before the tail that frees their places. */
static inline uint32_t bytering_drain(bytering_t *r, uint32_t room, void (*sink)(uint8_t))
{
    uint32_t t = r->tail, h = r->head, mask = r->size - 1u, n = 0; /* what was held when it began */
    const uint8_t *buf = r->buf;
    for (; n < room && t != h; n++, t++) sink(buf[t & mask]);
    BYTERING_ORDER();
    r->tail = t;
    return n;
}

#endif
