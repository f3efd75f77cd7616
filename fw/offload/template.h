/* Prebuilt order frames for the hardware order engine (DESIGN.md "The offload and the session").
 *
 * In:  the order (CompIDs, account, ClOrdID, side, quantity, limit price, symbol), the connection
 *      (MACs, IPv4 addresses, TCP ports) and the UTC day the order may go out.
 * Out: an Ethernet/IPv4/TCP frame carrying a FIX 4.4 New Order Single (35=D, DESIGN.md field order) in
 *      which everything the hardware patches at send time is a placeholder, plus the offsets and the
 *      checksums of the placeholder frame that the engine updates incrementally:
 *        IPv4 identification 0, TCP sequence/acknowledgment/window 0, MsgSeqNum (34) all '0' digits
 *        (fixed width: zero padding is legal FIX), SendingTime (52) and TransactTime (60)
 *        "YYYYMMDD-00:00:00.000" of that day (the engine writes the time of day), CheckSum (10) "000"
 *        (fix_sum is the placeholder message's CheckSum); the IPv4 header and TCP checksums are those of
 *        the placeholder frame as stored.
 * ofl_materialize() writes real values into a copy and recomputes every checksum from scratch: the
 * reference the host tests compare the hardware against, and how firmware reconstructs the exact bytes
 * the hardware sent (for TCP retransmission and FIX resend) from a fire-log record.
 * Transport-agnostic and host-tested (fw/tests/test_offload_template.c). */
#ifndef TF_OFFLOAD_TEMPLATE_H
#define TF_OFFLOAD_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OFL_TEMPLATE_MAX 256   /* bytes per template slot of the engine (frame without FCS): an armed order's limit */
#define OFL_FRAME_MAX 511      /* a firmware frame sent through the engine's queue (two slots) */
#define OFL_ETH_HDR 14
#define OFL_IP_HDR 20
#define OFL_TCP_HDR 20
#define OFL_FIX_OFF (OFL_ETH_HDR + OFL_IP_HDR + OFL_TCP_HDR) /* 54: the FIX message starts here */
#define OFL_MSGSEQ_WIDTH_DEFAULT 8                           /* 34=00000001: up to 99,999,999 messages */

/* The connection a frame belongs to. */
typedef struct {
    uint8_t dst_mac[6], src_mac[6];
    uint32_t src_ip, dst_ip;     /* host order */
    uint16_t src_port, dst_port;
} ofl_conn_t;

typedef struct {
    ofl_conn_t conn;             /* MACs, addresses, ports */
    const char *sender, *target; /* 49, 56 */
    const char *account;         /* 1 */
    const char *clordid;         /* 11 */
    const char *symbol;          /* 55 */
    char side;                   /* 54: '1' buy, '2' sell */
    int64_t qty;                 /* 38, fixed point with qty_dec */
    unsigned qty_dec;
    int64_t price;               /* 44, fixed point with price_dec */
    unsigned price_dec;
    uint64_t utc_day_ms;         /* any time of the UTC day the order may go out: its date is used */
    unsigned msgseq_width;       /* digits of 34 (1..10); 0 -> OFL_MSGSEQ_WIDTH_DEFAULT */
} ofl_order_spec_t;

/* How the engine treats a frame's MsgSeqNum (the SEND queue's modes; armed orders are always numbered). */
enum { OFL_MSG_NUMBERED = 0, /* 34 is a placeholder of msg_width '0's: the engine writes its next number */
       OFL_MSG_KEEP = 1,     /* the message keeps its own 34 (a PossDup resend, a gap fill) */
       OFL_MSG_NONE = 2 };   /* no FIX message: a bare TCP segment (a FIN) */

typedef struct {
    uint8_t frame[OFL_FRAME_MAX];
    uint16_t len;        /* frame length (DA .. last byte of the FIX message, no FCS) */
    uint16_t fix_len;    /* FIX message length = TCP payload length */
    uint16_t msg_off;    /* frame offset of the first MsgSeqNum digit (OFL_MSG_NUMBERED) */
    uint8_t msg_width;   /* its digits */
    uint8_t msg_mode;    /* OFL_MSG_* */
    bool st_en, tt_en;   /* the engine writes the time of day into SendingTime / TransactTime */
    bool fin;            /* the segment carries FIN */
    uint16_t cs_off;     /* frame offset of the first of the three CheckSum digits (not OFL_MSG_NONE) */
    uint16_t st_off;     /* frame offset of SendingTime's HH (st_en) */
    uint16_t tt_off;     /* frame offset of TransactTime's HH (tt_en) */
    uint16_t ip_csum;    /* IPv4 header checksum of the placeholder frame */
    uint16_t tcp_csum;   /* TCP checksum of the placeholder frame */
    uint8_t fix_sum;     /* FIX CheckSum of the placeholder message (its digits in the frame are 000) */
    uint64_t day_ms;     /* midnight UTC of the template's day */
} ofl_template_t;

enum { OFL_OK = 0, OFL_E_ARG = -1, OFL_E_TOO_LONG = -2 };

int ofl_build_template(ofl_template_t *t, const ofl_order_spec_t *s);

/* A firmware frame for the engine's SEND queue: the FIX message fix[0..n) exactly as the session built it (a
 * complete message with its CheckSum), on connection c, in an Ethernet/IPv4/TCP frame with the same placeholders
 * as an order (IPv4 id, seq, ack, window 0; CheckSum "000" with fix_sum). mode OFL_MSG_NUMBERED: the message's 34
 * must be a run of 1..10 '0's (the session's placeholder); OFL_MSG_KEEP: its 34 stays; OFL_MSG_NONE: n must be 0
 * (a bare segment: with fin, a FIN). The engine patches no time field of a firmware frame (the session wrote
 * SendingTime when it built the message). Returns OFL_OK, OFL_E_ARG (a malformed message, or a placeholder or
 * mode that does not fit) or OFL_E_TOO_LONG (longer than OFL_FRAME_MAX). */
int ofl_build_frame(ofl_template_t *t, const ofl_conn_t *c, const uint8_t *fix, size_t n, unsigned mode, bool fin);

/* What the hardware patches, for one send. */
typedef struct {
    uint32_t seq, ack;
    uint16_t window;
    uint16_t ip_id;
    uint32_t msgseq;
    uint32_t tod_ms; /* time of day (ms since midnight UTC) written into 52 and 60 */
} ofl_patch_t;

/* The frame the engine must send for these values, every checksum recomputed: writes t->len bytes to
 * out (which may be t->frame itself) and returns t->len, or 0 when msgseq does not fit the width (OFL_MSG_NUMBERED)
 * or tod_ms is not within a day. msgseq is ignored unless the frame is numbered, tod_ms unless a time is patched. */
size_t ofl_materialize(const ofl_template_t *t, const ofl_patch_t *p, uint8_t *out);

#endif
