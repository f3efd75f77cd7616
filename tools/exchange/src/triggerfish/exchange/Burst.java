package triggerfish.exchange;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.transport.socket.SocketSessionConfig;
import quickfix.Group;
import quickfix.Message;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.field.MsgType;
import quickfix.field.TestReqID;

/**
 * A burst of 35=W market data to the session subscribed to a symbol, on command (the control FIFO, --control):
 * <pre>
 *   burst N segment|coalesced [symbol=MSFT] [bid=99.95] [ask=100.05] [cross=I:PX,...] [testreq=K,...]
 *                             [inflight=BYTES] [liquidity=SIZE] [drain-s=S] [depth=D]
 * </pre>
 * N messages, each a snapshot with the best bid (bid), the best offer (ask) and a last trade: 100 at 99.99 and
 * 100.01 alternately, except message I of each cross=I:PX, whose trade is at PX (so that stops armed by the test
 * cross at known messages). With depth=D (default 1) each has D bid and D offer levels, a cent apart from the best
 * (290 = 1..D): 20 levels make a message of about 1,300 bytes, longer than the SoC firmware's 1,024-byte receive
 * buffer, within one TCP segment. They are market data only: the book does not change. Before the burst the market
 * maker rests `liquidity` (default 1,000,000) at bid and at ask in the real book, so that the orders of stops that
 * cross them fill. After message K of each testreq=K (default N/2) a TestRequest 112=BURST-TR-K goes out; the
 * delay of its Heartbeat is printed.
 * <ul>
 * <li>segment: one message per TCP segment. TCP_NODELAY, one write per message, and each message is written only
 *   when everything before it is in the kernel (MINA's queue empty) and at most `inflight` bytes (default 0) are
 *   unacknowledged (the socket's tx_queue in /proc/net/tcp): the kernel never holds two messages unsent, so it
 *   never merges them into one segment.</li>
 * <li>coalesced: Nagle on (TCP_NODELAY off) for the burst and every message written at once: the kernel sends
 *   full segments (MSS) while anything is unacknowledged.</li>
 * </ul>
 * Stdout lines (one per event): BURST START, BURST CROSS index=I seq=S px=PX, BURST TESTREQ id=.. after=K seq=S,
 * BURST HEARTBEAT id=.. delay_ms=D, BURST SENT, then BURST ACKED (every byte acknowledged by the peer) or BURST
 * LOST (the session logged out, or drain-s passed: default 3600), or BURST ABORTED (the session ended before every
 * message was written). Fields are key=value.
 */
final class Burst implements Runnable {
    enum Shape { SEGMENT, COALESCED }

    static final class Spec {
        int n;
        Shape shape;
        String symbol = ExchangeServer.DEFAULT_SYMBOL;
        BigDecimal bid = new BigDecimal("99.95"), ask = new BigDecimal("100.05");
        final TreeMap<Integer, BigDecimal> cross = new TreeMap<>();
        final List<Integer> testreq = new ArrayList<>();
        long inflight = 0;
        long liquidity = 1_000_000;
        long drainS = 3600;
        int depth = 1;

        /** The trade price of message i (1-based). */
        BigDecimal tradePx(int i) {
            BigDecimal px = cross.get(i);
            if (px != null) return px;
            return i % 2 == 1 ? new BigDecimal("99.99") : new BigDecimal("100.01");
        }
    }

    static Spec parse(String line) {
        String[] w = line.trim().split("\\s+");
        if (w.length < 3 || !w[0].equals("burst"))
            throw new IllegalArgumentException("usage: burst N segment|coalesced [key=value ...]");
        Spec s = new Spec();
        s.n = Integer.parseInt(w[1]);
        if (s.n < 1) throw new IllegalArgumentException("N must be at least 1");
        s.shape = switch (w[2]) {
            case "segment" -> Shape.SEGMENT;
            case "coalesced" -> Shape.COALESCED;
            default -> throw new IllegalArgumentException("shape is segment or coalesced, not " + w[2]);
        };
        boolean testreqGiven = false;
        for (int i = 3; i < w.length; i++) {
            int eq = w[i].indexOf('=');
            if (eq < 1) throw new IllegalArgumentException("not key=value: " + w[i]);
            String k = w[i].substring(0, eq), v = w[i].substring(eq + 1);
            switch (k) {
                case "symbol" -> s.symbol = v;
                case "bid" -> s.bid = new BigDecimal(v);
                case "ask" -> s.ask = new BigDecimal(v);
                case "inflight" -> s.inflight = Long.parseLong(v);
                case "liquidity" -> s.liquidity = Long.parseLong(v);
                case "drain-s" -> s.drainS = Long.parseLong(v);
                case "depth" -> {
                    s.depth = Integer.parseInt(v);
                    if (s.depth < 1 || s.depth > 200) throw new IllegalArgumentException("depth must be 1 to 200, not " + v);
                }
                case "cross" -> {
                    for (String c : v.split(",")) {
                        if (c.isEmpty()) continue;
                        String[] p = c.split(":");
                        if (p.length != 2) throw new IllegalArgumentException("cross is I:PX[,I:PX...], not " + v);
                        int idx = Integer.parseInt(p[0]);
                        if (idx < 1 || idx > s.n) throw new IllegalArgumentException("cross index " + idx + " not in 1.." + s.n);
                        s.cross.put(idx, new BigDecimal(p[1]));
                    }
                }
                case "testreq" -> {
                    testreqGiven = true;
                    for (String c : v.split(",")) {
                        if (c.isEmpty()) continue;
                        int idx = Integer.parseInt(c);
                        if (idx < 1 || idx > s.n) throw new IllegalArgumentException("testreq index " + idx + " not in 1.." + s.n);
                        s.testreq.add(idx);
                    }
                }
                default -> throw new IllegalArgumentException("unknown key " + k);
            }
        }
        if (!testreqGiven) s.testreq.add(Math.max(1, s.n / 2));
        return s;
    }

    private final Exchange exchange;
    private final Spec spec;
    private final SessionID id;
    private final String reqId;
    private final Consumer<String> events;

    Burst(Exchange exchange, Spec spec, SessionID id, String reqId, Consumer<String> events) {
        this.exchange = exchange;
        this.spec = spec;
        this.id = id;
        this.reqId = reqId;
        this.events = events;
    }

    static Message snapshot(String reqId, String symbol, BigDecimal bid, BigDecimal ask, BigDecimal trade, int depth) {
        Message w = new quickfix.fix44.MarketDataSnapshotFullRefresh();
        w.setString(55, symbol);
        w.setString(262, reqId);
        BigDecimal cent = new BigDecimal("0.01");
        for (int l = 1; l <= depth; l++) w.addGroup(entry('0', bid.subtract(cent.multiply(BigDecimal.valueOf(l - 1))), l));
        for (int l = 1; l <= depth; l++) w.addGroup(entry('1', ask.add(cent.multiply(BigDecimal.valueOf(l - 1))), l));
        w.addGroup(entry('2', trade, 0));
        return w;
    }

    private static Group entry(char type, BigDecimal px, int position) {
        Group g = new quickfix.fix44.MarketDataSnapshotFullRefresh.NoMDEntries();
        g.setChar(269, type);
        g.setString(270, px.stripTrailingZeros().toPlainString());
        g.setString(271, "100");
        if (position > 0) g.setInt(290, position);
        return g;
    }

    @Override public void run() {
        Session s = Session.lookupSession(id);
        IoSession io = s == null ? null : quickfix.mina.TriggerfishIo.ioSession(s.getResponder());
        if (s == null || io == null || !s.isLoggedOn()) {
            events.accept("BURST ERROR session " + id + " is not logged on");
            return;
        }
        int localPort = ((InetSocketAddress) io.getLocalAddress()).getPort();
        int remotePort = ((InetSocketAddress) io.getRemoteAddress()).getPort();
        SocketSessionConfig cfg = io.getConfig() instanceof SocketSessionConfig c ? c : null;
        boolean noDelay = cfg == null || cfg.isTcpNoDelay();
        if (spec.shape == Shape.COALESCED && cfg != null) cfg.setTcpNoDelay(false);
        if (spec.shape == Shape.SEGMENT && cfg != null) cfg.setTcpNoDelay(true);
        boolean procOk = txQueue(localPort, remotePort) >= 0;
        if (spec.shape == Shape.SEGMENT && !procOk)
            events.accept("BURST WARN the socket is not in /proc/net/tcp: pacing by MINA's queue only");
        events.accept("BURST START n=" + spec.n + " shape=" + spec.shape.name().toLowerCase() + " symbol=" + spec.symbol
                + " session=" + id.getTargetCompID() + " local_port=" + localPort + " remote_port=" + remotePort
                + " inflight=" + spec.inflight + " nodelay_before=" + noDelay);
        long t0 = System.nanoTime();
        int firstSeq = -1, lastSeq = -1, sent = 0;
        String why = null;
        for (int i = 1; i <= spec.n; i++) {
            if (spec.shape == Shape.SEGMENT) {
                why = waitQueue(s, io, localPort, remotePort, spec.inflight, Long.MAX_VALUE);
                if (why != null) break;
            }
            if (!s.isLoggedOn()) { why = "session logged out"; break; }
            Message w = snapshot(reqId, spec.symbol, spec.bid, spec.ask, spec.tradePx(i), spec.depth);
            if (!s.send(w)) { why = "QuickFIX/J did not send message " + i; break; }
            int seq = seqOf(w);
            if (firstSeq < 0) firstSeq = seq;
            lastSeq = seq;
            sent = i;
            if (spec.cross.containsKey(i))
                events.accept("BURST CROSS index=" + i + " seq=" + seq + " px=" + spec.tradePx(i).toPlainString());
            if (spec.testreq.contains(i)) testRequest(s, "BURST-TR-" + i, i);
        }
        long sentMs = (System.nanoTime() - t0) / 1_000_000;
        if (why != null) {
            events.accept("BURST ABORTED sent=" + sent + " first_seq=" + firstSeq + " last_seq=" + lastSeq + " wall_ms=" + sentMs
                    + " reason=" + why.replace(' ', '_'));
        } else {
            events.accept("BURST SENT n=" + sent + " first_seq=" + firstSeq + " last_seq=" + lastSeq + " wall_ms=" + sentMs);
        }
        if (cfg != null) cfg.setTcpNoDelay(noDelay);
        if (why != null) return;
        String lost = waitQueue(s, io, localPort, remotePort, 0, System.nanoTime() + TimeUnit.SECONDS.toNanos(spec.drainS));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        if (lost == null) events.accept("BURST ACKED n=" + sent + " wall_ms=" + ms);
        else events.accept("BURST LOST n=" + sent + " wall_ms=" + ms + " reason=" + lost.replace(' ', '_'));
    }

    private static int seqOf(Message m) {
        try {
            return m.getHeader().getInt(34);
        } catch (quickfix.FieldNotFound e) {
            return -1;
        }
    }

    private void testRequest(Session s, String testReqId, int after) {
        CompletableFuture<Void> answered = exchange.expectHeartbeat(id, testReqId);
        Message m = new Message();
        m.getHeader().setString(MsgType.FIELD, "1");
        m.setString(TestReqID.FIELD, testReqId);
        long t = System.nanoTime();
        answered.thenRun(() -> events.accept("BURST HEARTBEAT id=" + testReqId + " delay_ms="
                + (System.nanoTime() - t) / 1_000_000 + (s.isLoggedOn() ? "" : " (logged out)")));
        s.send(m);
        events.accept("BURST TESTREQ id=" + testReqId + " after=" + after + " seq=" + seqOf(m));
    }

    /** Waits until MINA has handed everything to the kernel and at most maxUnacked bytes are unacknowledged.
     * Returns null then, or why it stopped waiting (the session ended, the deadline passed). */
    private static String waitQueue(Session s, IoSession io, int localPort, int remotePort, long maxUnacked, long deadline) {
        while (true) {
            if (!s.isLoggedOn() || io.isClosing()) return "session logged out";
            if (io.getScheduledWriteBytes() == 0) {
                long q = txQueue(localPort, remotePort);
                if (q <= maxUnacked) return null;   // -1: not found (pace by MINA's queue only)
            }
            if (System.nanoTime() > deadline) return "not acknowledged by the deadline";
            LockSupport.parkNanos(200_000);
        }
    }

    /** The socket's unacknowledged + unsent bytes (tx_queue) from /proc/net/tcp{,6}, or -1 when not found. */
    static long txQueue(int localPort, int remotePort) {
        String lp = String.format(":%04X", localPort), rp = String.format(":%04X", remotePort);
        for (String f : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            List<String> lines;
            try {
                lines = Files.readAllLines(Path.of(f));
            } catch (IOException e) {
                continue;
            }
            long q = txQueueOf(lines, lp, rp);
            if (q >= 0) return q;
        }
        return -1;
    }

    static long txQueueOf(List<String> lines, String lp, String rp) {
        for (String line : lines) {
            String[] c = line.trim().split("\\s+");
            if (c.length < 5 || !c[1].endsWith(lp) || !c[2].endsWith(rp) || !c[3].equals("01")) continue;
            int colon = c[4].indexOf(':');
            if (colon < 0) continue;
            return Long.parseLong(c[4].substring(0, colon), 16);
        }
        return -1;
    }
}
