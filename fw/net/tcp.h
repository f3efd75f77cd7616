/* net/tcp.h - TCP client (RFC 9293 subset) for a few fixed connections.
 * Input: TCP segments from IPv4 (checked with the pseudo-header checksum), owner calls
 * (connect/send/close/abort), the time (net_poll), random numbers (net_ops.rand32).
 * Output: segments through IPv4, callbacks to the owner (connected, in-order data,
 * closed, error), counters.
 *
 * What it does
 * - Active open only, with a random ISN and a random ephemeral source port per connection
 *   (49152..65535), so a restarted simulation can connect at once while the kernel still
 *   holds the previous half-closed connection. MSS option sent (NET_TCP_MSS) and the
 *   peer's honoured (536 when absent). SACK-permitted offered in the SYN (NET_TCP_SACK); when
 *   the peer's SYN-ACK allows it, a pure ACK sent while out-of-order bytes are held carries
 *   them as one SACK block (RFC 2018), so the peer resends the holes only and need not wait
 *   for its retransmission timer; SACK blocks the peer sends are ignored (our sends recover
 *   by fast retransmit and the timer). No window scaling or timestamps.
 * - Receive: in-order payload is handed to on_data at once and never buffered, so the
 *   advertised window is the constant NET_TCP_RCV_WND. Out-of-order data is held in one
 *   contiguous range of up to NET_TCP_OOO_BUF bytes (later segments that do not extend it
 *   are dropped) and answered with a duplicate ACK; once the hole is filled the held bytes
 *   are delivered and ACKed at once, so a peer without SACK need not resend them (go-back-N
 *   after one loss is slow against Linux). Old or duplicate segments are re-ACKed; data is
 *   never delivered out of order or twice.
 *   Every segment carrying data is ACKed at once (no delayed ACK: lowest latency).
 * - Send: bytes accepted by tcp_send() stay in a NET_TCP_SNDBUF ring until acknowledged.
 *   Segments go out as soon as the peer's window allows (no Nagle, no congestion window:
 *   this stack talks to one peer on a LAN). Retransmission timeout per RFC 6298 (SRTT,
 *   RTTVAR, Karn's rule, clamped to [NET_TCP_RTO_MIN_MS, NET_TCP_RTO_MAX_MS], doubled on
 *   every timeout); the oldest unacknowledged segment is resent. Three duplicate ACKs
 *   trigger a fast retransmit. A zero window is probed (1 byte) after the RTO, with backoff.
 * - Close: tcp_close() sends FIN after the buffered data (active close). When the peer's FIN
 *   arrives first (passive close) the stack closes its side by itself once its buffered
 *   data is sent. on_closed() is called once both FINs are exchanged and ours is ACKed
 *   (active close: when entering TIME_WAIT). TIME_WAIT lasts NET_TCP_TIME_WAIT_MS (short: our
 *   ports are random, so a new connection never reuses the old 4-tuple) and only re-ACKs
 *   a retransmitted FIN; a TIME_WAIT slot is reused by tcp_connect() when no slot is free.
 * - Resets: a segment for no connection gets a RST (RFC 9293 rules); a RST in window with the
 *   exact expected sequence aborts the connection (on_error TCP_ERR_RESET, or TCP_ERR_REFUSED
 *   in SYN_SENT); an in-window but inexact RST or SYN gets a challenge ACK (RFC 5961).
 * - Failure: SYN not answered after NET_TCP_SYN_RETRIES retransmissions, or data not ACKed
 *   after NET_TCP_DATA_RETRIES -> on_error(TCP_ERR_TIMEOUT); next hop not resolvable by
 *   ARP while connecting -> on_error(TCP_ERR_UNREACHABLE). tcp_backoff_* helps reconnect.
 * - Simultaneous open (a SYN without ACK in SYN_SENT) is not supported: the SYN is dropped.
 *
 * Callbacks: after on_closed or on_error the connection handle is free (it may already be
 * reused by a tcp_connect() made from inside the callback); only compare it, never use it.
 * Callbacks may call tcp_send/tcp_close/tcp_abort/tcp_connect. tcp_* calls take the time of
 * the last net_input()/net_poll().
 *
 * Sequence numbers handed to hardware (offload orders), see tcp_hw_arm() below. */
#ifndef NET_TCP_H
#define NET_TCP_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "net/ipv4.h"

#ifndef NET_TCP_MAX_CONNS
#define NET_TCP_MAX_CONNS     2           /* connection slots */
#endif
#ifndef NET_TCP_SNDBUF
#define NET_TCP_SNDBUF        8192u       /* send ring per connection, power of two */
#endif
#ifndef NET_TCP_RCV_WND
#define NET_TCP_RCV_WND       8192u       /* advertised receive window (<= 65535) */
#endif
#ifndef NET_TCP_OOO_BUF
#define NET_TCP_OOO_BUF       4096u       /* out-of-order hold buffer per connection; 0 = none */
#endif
#ifndef NET_TCP_SACK
#define NET_TCP_SACK          1u          /* offer SACK (RFC 2018) and report the held out-of-order range; 0 = off */
#endif
#ifndef NET_TCP_SKIP_HELD
#define NET_TCP_SKIP_HELD     0u          /* ranges a receive offload consumed, held ahead of rcv_nxt (tcp_rx_skip); 0 = none */
#endif
#define NET_TCP_DELACK_MS     40u         /* the ACK of skipped bytes waits at most this long (tcp_rx_skip) */
#define NET_TCP_MSS           (IPV4_PAYLOAD_MAX - TCP_HDR_LEN)   /* 1460: what we accept */
#define NET_TCP_DEFAULT_MSS   536u        /* peer MSS when it sends no option */
#define NET_TCP_RTO_INIT_MS   1000u       /* RFC 6298 initial RTO */
#ifndef NET_TCP_RTO_MIN_MS
#define NET_TCP_RTO_MIN_MS    200u
#endif
#ifndef NET_TCP_RTO_MAX_MS
#define NET_TCP_RTO_MAX_MS    60000u
#endif
#define NET_TCP_SYN_RETRIES   5           /* SYN sent 1 + 5 times: 1+2+4+8+16+32 s */
#define NET_TCP_DATA_RETRIES  8
#define NET_TCP_DUPACK_THRESH 3
#ifndef NET_TCP_TIME_WAIT_MS
#define NET_TCP_TIME_WAIT_MS  1000u
#endif
#define NET_TCP_FIN_WAIT2_MS  10000u      /* give up waiting for the peer's FIN */
#define NET_TCP_PORT_MIN      49152u      /* ephemeral source ports: 49152..65535 */

#if (NET_TCP_SNDBUF & (NET_TCP_SNDBUF - 1)) != 0 || NET_TCP_SNDBUF > 32768u
#error "NET_TCP_SNDBUF must be a power of two <= 32768"
#endif
#if NET_TCP_OOO_BUF > NET_TCP_RCV_WND
#error "NET_TCP_OOO_BUF larger than the receive window is useless"
#endif
#if NET_TCP_RCV_WND > 65535u
#error "NET_TCP_RCV_WND must fit the 16-bit window (no window scaling)"
#endif

#define TCP_HDR_LEN   20
#define TCP_FLAG_FIN  0x01
#define TCP_FLAG_SYN  0x02
#define TCP_FLAG_RST  0x04
#define TCP_FLAG_PSH  0x08
#define TCP_FLAG_ACK  0x10
#define TCP_FLAG_URG  0x20

enum tcp_state {
    TCP_CLOSED = 0,     /* slot free */
    TCP_SYN_SENT,
    TCP_ESTABLISHED,
    TCP_FIN_WAIT_1,
    TCP_FIN_WAIT_2,
    TCP_CLOSING,
    TCP_TIME_WAIT,
    TCP_CLOSE_WAIT,
    TCP_LAST_ACK
};

enum tcp_error {
    TCP_ERR_NONE = 0,
    TCP_ERR_REFUSED,      /* RST in answer to our SYN */
    TCP_ERR_RESET,        /* RST on an open connection */
    TCP_ERR_TIMEOUT,      /* too many retransmissions */
    TCP_ERR_UNREACHABLE   /* next hop did not answer ARP while connecting */
};

struct tcp_conn;

struct tcp_callbacks {
    void (*on_connected)(struct tcp_conn *c, void *user);
    /* In-order payload; the bytes are only valid during the call. */
    void (*on_data)(struct tcp_conn *c, void *user, const uint8_t *data, size_t len);
    void (*on_closed)(struct tcp_conn *c, void *user);
    void (*on_error)(struct tcp_conn *c, void *user, enum tcp_error err);
#if NET_TCP_SKIP_HELD > 0
    /* Optional: rcv_nxt moved over [seq, seq + len), bytes a receive offload consumed (tcp_rx_skip), in stream order
     * with on_data. */
    void (*on_skipped)(struct tcp_conn *c, void *user, uint32_t seq, uint32_t len);
#endif
};

/* One connection. Fields are private to tcp.c; use the functions below. */
struct tcp_conn {
    struct net_stack *stack;
    enum tcp_state state;
    uint32_t gen;                 /* bumped on every allocate/free */
    const struct tcp_callbacks *cb;
    void *user;
    uint32_t remote_ip;
    uint16_t remote_port, local_port;
    /* send side */
    uint32_t iss, snd_una, snd_nxt;
    uint32_t snd_end;             /* sequence after the last buffered byte (FIN goes there) */
    uint32_t snd_wnd, snd_wl1, snd_wl2;
    uint16_t snd_mss;
    bool fin_queued, fin_sent;
    uint8_t dupacks;
    uint8_t retries;
    uint8_t backoff;              /* RTO shift */
    bool rtt_valid;               /* at least one RTT sample taken */
    bool rtt_timing;
    uint32_t rtt_seq;
    uint64_t rtt_start_ms;
    uint32_t srtt8, rttvar4, rto_ms;  /* 8*SRTT, 4*RTTVAR, base RTO (all ms) */
    uint64_t rto_deadline;        /* 0 = timer off */
    uint64_t persist_deadline;    /* 0 = off */
    uint64_t linger_deadline;     /* TIME_WAIT / FIN_WAIT_2 end; 0 = off */
    /* receive side */
    uint32_t irs, rcv_nxt;
    bool ack_pending;
    /* hardware offload lease */
    bool hw_armed;
    uint32_t hw_seq;
    uint32_t hw_max;
    bool sack_ok;                 /* the peer's SYN-ACK carried SACK-permitted (and NET_TCP_SACK): ACKs report the held range */
    uint32_t ooo_seq;             /* held out-of-order range [ooo_seq, ooo_seq + ooo_len) */
    uint32_t ooo_len;
#if NET_TCP_OOO_BUF > 0
    uint8_t ooo_buf[NET_TCP_OOO_BUF];
#endif
#if NET_TCP_SKIP_HELD > 0
    uint32_t skip_seq[NET_TCP_SKIP_HELD], skip_len[NET_TCP_SKIP_HELD];   /* held skips, in no order */
    uint32_t skip_unacked;        /* skipped bytes not acknowledged yet */
    uint64_t delack_deadline;     /* their ACK is due; 0 = none */
    uint8_t skip_n;
#endif
    uint8_t sndbuf[NET_TCP_SNDBUF];   /* byte with sequence s lives at sndbuf[s % SNDBUF] */
};

/* Opens a connection to ip:port (host byte order). Returns NULL when no slot is free
 * or the stack has no address. on_connected or on_error follows. */
struct tcp_conn *tcp_connect(struct net_stack *s, uint32_t ip, uint16_t port,
                             const struct tcp_callbacks *cb, void *user);
/* Queues up to len bytes; returns the number accepted (0 when not ESTABLISHED, closing,
 * armed for hardware, or the buffer is full). Accepted bytes are kept until ACKed. */
size_t tcp_send(struct tcp_conn *c, const void *data, size_t len);
/* Free bytes in the send buffer (what tcp_send would accept now). */
size_t tcp_send_space(const struct tcp_conn *c);
/* Bytes queued but not acknowledged yet (sent or not). */
size_t tcp_send_unacked(const struct tcp_conn *c);
/* Graceful close: FIN after the buffered data. on_closed follows (or on_error). */
void tcp_close(struct tcp_conn *c);
/* Immediate abort: RST sent, slot freed, no callback. */
void tcp_abort(struct tcp_conn *c);
enum tcp_state tcp_get_state(const struct tcp_conn *c);
uint16_t tcp_local_port(const struct tcp_conn *c);
/* Current retransmission timeout in ms (base RTO with backoff, clamped). */
uint32_t tcp_current_rto(const struct tcp_conn *c);
const char *tcp_state_name(enum tcp_state st);

/* ---- Sequence numbers used by hardware (offload order) ----
 * The order engine may send one segment by itself on this connection. Hardware and
 * firmware must never use a sequence range twice nor leave a gap, and firmware keeps
 * the bytes for retransmission. Protocol:
 * A lease covers max_len bytes from seq, in one or several hardware segments.
 *  1. tcp_hw_arm(c, max_len, &seq): allowed in ESTABLISHED when every buffered byte has
 *     been sent and max_len bytes of buffer are free (max_len may be 0: a lease that only grows by
 *     tcp_hw_extend, for a transmitter that sends every frame; its FIN: tcp_hw_fin_wanted); the
 *     been sent (snd_nxt == end of buffer) and max_len bytes of buffer are free. Returns
 *     the sequence number the hardware must use (= snd_nxt); firmware programs it together
 *     with rcv_nxt (tcp_hw_rcv_nxt) into the engine. While armed, tcp_send() accepts
 *     nothing (returns 0), so no firmware byte can take that sequence number; ACKs up to
 *     seq + max_len are tolerated (the hardware segment may be ACKed before adoption).
 *  2a. The hardware fired: tcp_adopt_sent(c, seq, data, len) with the payload it sent.
 *      The bytes enter the send buffer as if sent by tcp_send at that moment: the
 *      retransmission timer covers them and snd_nxt moves past them. The lease goes on for
 *      the rest of max_len: the next hardware segment starts at seq + len.
 *  2b. Firmware needs to send itself: stop the hardware (the owner's protocol), adopt what
 *      it sent (2a), tcp_hw_disarm(c) (the lease ends), tcp_send(...), and re-arm later with the
 *      new sequence number once tcp_send_unsent(c) == 0. (The SoC's offload never does: its
 *      engine sends every frame that takes sequence space, app/offload.c.)
 * Returns of tcp_adopt_sent: 0 ok; TCP_ADOPT_NOT_ARMED; TCP_ADOPT_BAD_SEQ (seq is not the
 * armed one); TCP_ADOPT_TOO_LONG (len > max_len given to tcp_hw_arm). */
enum { TCP_ADOPT_OK = 0, TCP_ADOPT_NOT_ARMED = -1, TCP_ADOPT_BAD_SEQ = -2, TCP_ADOPT_TOO_LONG = -3 };
bool tcp_hw_arm(struct tcp_conn *c, size_t max_len, uint32_t *seq_out);
#if NET_TCP_SKIP_HELD > 0
/* Receive offload (DESIGN.md "Digesting market data"): the peer's bytes [seq, seq + len) were consumed by hardware
 * and will never be delivered. At rcv_nxt they are skipped at once: rcv_nxt moves over them (on_skipped), held
 * out-of-order data that follows is delivered, and their ACK is delayed as Linux delays one (sent at once from
 * two full segments' worth of unacknowledged skipped bytes, else within NET_TCP_DELACK_MS by tcp_poll; any
 * segment we send carries it too). Ahead of rcv_nxt (an earlier segment was lost on the way to firmware): held
 * until rcv_nxt reaches them, in stream order with the data (a held range that touches another joins it; a held
 * range inside a segment cuts the segment's delivery where it starts). Returns TCP_SKIP_OK (skipped now), TCP_SKIP_HELD,
 * TCP_SKIP_OLD (nothing new in it), TCP_SKIP_WINDOW (past the receive window), TCP_SKIP_FULL (NET_TCP_SKIP_HELD
 * ranges held already) or TCP_SKIP_STATE (the connection does not receive). Only OK and HELD change anything. */
enum { TCP_SKIP_OK = 0, TCP_SKIP_HELD = 1, TCP_SKIP_OLD = 2, TCP_SKIP_WINDOW = -1, TCP_SKIP_FULL = -2, TCP_SKIP_STATE = -3 };
int tcp_rx_skip(struct tcp_conn *c, uint32_t seq, uint32_t len);
#endif
void tcp_hw_disarm(struct tcp_conn *c);
int tcp_adopt_sent(struct tcp_conn *c, uint32_t seq, const uint8_t *data, size_t len);
/* Lengthens the lease by n bytes (another order armed while the hardware owns the numbers): false when
 * not armed or the send buffer has no room for the whole lease. */
bool tcp_hw_extend(struct tcp_conn *c, size_t n);
/* Shortens the lease by n bytes (an armed order canceled: it will never be sent). */
void tcp_hw_shrink(struct tcp_conn *c, size_t n);
/* The FIN, when the hardware sends everything that consumes sequence space (the order engine's send queue): while
 * armed, tcp_close() (or the peer's FIN in CLOSE_WAIT) queues our FIN but the stack cannot send it itself.
 * tcp_hw_fin_wanted() says it is due (queued, not sent, every byte before it adopted): the owner has the hardware
 * send it at the returned sequence number (*seq_out) and adopts it with tcp_adopt_fin(c, seq), which returns
 * TCP_ADOPT_OK, TCP_ADOPT_NOT_ARMED, or TCP_ADOPT_BAD_SEQ (not that number, or no FIN due). From then on the
 * stack retransmits the FIN itself, as one it sent. */
bool tcp_hw_fin_wanted(const struct tcp_conn *c, uint32_t *seq_out);
int tcp_adopt_fin(struct tcp_conn *c, uint32_t seq);
/* Next sequence number expected from the peer (the ACK field the hardware sends). */
uint32_t tcp_hw_rcv_nxt(const struct tcp_conn *c);
/* Buffered bytes not sent yet. */
size_t tcp_send_unsent(const struct tcp_conn *c);

/* ---- Reconnect helper: exponential backoff with jitter, pure bookkeeping ----
 * Owner: on error call tcp_backoff_failed(); connect again when tcp_backoff_due();
 * on_connected -> tcp_backoff_reset(). */
struct tcp_backoff {
    uint32_t min_ms, max_ms, cur_ms;
    uint64_t next_ms;
};
void tcp_backoff_init(struct tcp_backoff *b, uint32_t min_ms, uint32_t max_ms);
/* Schedules the next attempt at now + cur (+ up to cur/4 jitter from rnd), then doubles cur. */
void tcp_backoff_failed(struct tcp_backoff *b, uint64_t now_ms, uint32_t rnd);
bool tcp_backoff_due(const struct tcp_backoff *b, uint64_t now_ms);
void tcp_backoff_reset(struct tcp_backoff *b);

/* Internal, called by net.c / arp.c. */
void tcp_input(struct net_stack *s, const struct ipv4_hdr *ih);
void tcp_poll(struct net_stack *s);
void tcp_arp_event(struct net_stack *s, uint32_t ip, bool ok);

#endif
