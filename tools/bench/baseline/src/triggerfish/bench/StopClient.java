package triggerfish.bench;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import quickfix.Application;
import quickfix.ConfigError;
import quickfix.DefaultMessageFactory;
import quickfix.FieldNotFound;
import quickfix.FileLogFactory;
import quickfix.Group;
import quickfix.Log;
import quickfix.LogFactory;
import quickfix.MemoryStoreFactory;
import quickfix.Message;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.SessionSettings;
import quickfix.SocketInitiator;
import quickfix.field.TransactTime;

/**
 * The Linux software baseline of the benchmark: a FIX 4.4 client on QuickFIX/J and the host kernel's TCP
 * that does in software what the Triggerfish offload does in logic. It logs on, subscribes to market data
 * (35=V, as the SoC's firmware does), holds one armed stop order at a time and, when a 35=W carries a
 * trade (269=2) whose price (270) crosses it (buy: price >= stop, sell: price <= stop), sends a New Order
 * Single (35=D, limit) at once from the QuickFIX/J callback thread. Then it arms the next stop of its list
 * (round robin), so one run makes many fires. A 35=W fires at most one stop; the stop armed after a fire
 * looks at the next 35=W.
 *
 * <p>The hot path (fromApp of a 35=W up to Session.send of the 35=D) does no logging and no allocation
 * beyond what QuickFIX/J itself does for a message; it records two System.nanoTime() stamps per fire in
 * preallocated arrays, written out after the run (--fires-csv).
 */
public final class StopClient implements Application, AutoCloseable {
    /** One stop order: symbol, side ('1' buy, '2' sell), stop price, quantity, limit price of the order. */
    public record Stop(String symbol, char side, BigDecimal stop, String qty, String limit) {
        public boolean crossedBy(BigDecimal trade) {
            int c = trade.compareTo(stop);
            return side == '1' ? c >= 0 : c <= 0;
        }

        /** "buy:MSFT:1170.50:10:1171.50" (side:symbol:stop:qty:limit). */
        public static Stop parse(String text) {
            String[] t = text.trim().split(":");
            if (t.length != 5) throw new IllegalArgumentException("stop '" + text + "': expected side:symbol:stop:qty:limit");
            char side = switch (t[0].toLowerCase()) {
                case "buy", "b", "1" -> '1';
                case "sell", "s", "2" -> '2';
                default -> throw new IllegalArgumentException("stop '" + text + "': side must be buy or sell");
            };
            BigDecimal stop = new BigDecimal(t[2]), qty = new BigDecimal(t[3]), limit = new BigDecimal(t[4]);
            if (stop.signum() <= 0 || qty.signum() <= 0 || limit.signum() <= 0)
                throw new IllegalArgumentException("stop '" + text + "': prices and quantity must be positive");
            return new Stop(t[1], side, stop, qty.toPlainString(), limit.toPlainString());
        }

        public static List<Stop> parseList(String text) {
            List<Stop> out = new ArrayList<>();
            for (String s : text.split(",")) if (!s.isBlank()) out.add(parse(s));
            if (out.isEmpty()) throw new IllegalArgumentException("no stops");
            return out;
        }
    }

    public static final class Config {
        public String host = "127.0.0.1";
        public int port = 9876;
        public String senderCompId = "BASE1", targetCompId = "EXCH";
        public String account = "BASE";
        public String clOrdIdPrefix = "BL";
        public List<Stop> stops = new ArrayList<>();
        public int maxFires = 1000;
        public int heartBtInt = 30;
        public Path logDir;          // QuickFIX FileLog of every message (off the measured path only when null)
    }

    /** No message or event log; session errors and warnings (rare, never on the hot path) go to stderr. */
    private static final Log ERRORS_ONLY = new Log() {
        @Override public void clear() {}
        @Override public void onIncoming(String message) {}
        @Override public void onOutgoing(String message) {}
        @Override public void onEvent(String text) {}
        @Override public void onErrorEvent(String text) { System.err.println("stop-client: FIX session error: " + text); }
        @Override public void onWarnEvent(String text) { System.err.println("stop-client: FIX session warning: " + text); }
    };

    private final Config cfg;
    private final Stop[] stops;
    private final SessionID sessionId;
    private final SocketInitiator initiator;
    private final CountDownLatch loggedOn = new CountDownLatch(1), done = new CountDownLatch(1);
    private volatile Session session;
    private volatile String failure;
    private volatile boolean loggedOut;

    // state of the callback thread (QuickFIX/J calls fromApp on one thread per session)
    private int armed;
    private int fires;
    private final long[] tIn, tSent;   // nanoTime at fromApp entry and after Session.send returned
    private final String[] tradePx;
    private final byte[] stopIndex;
    private volatile int firesPublished;
    private final AtomicInteger fills = new AtomicInteger(), rejects = new AtomicInteger(), marketData = new AtomicInteger();

    public StopClient(Config cfg) throws ConfigError {
        if (cfg.stops.isEmpty()) throw new IllegalArgumentException("no stops");
        if (cfg.stops.size() > 127) throw new IllegalArgumentException("at most 127 stops");
        this.cfg = cfg;
        this.stops = cfg.stops.toArray(new Stop[0]);
        this.tIn = new long[cfg.maxFires];
        this.tSent = new long[cfg.maxFires];
        this.tradePx = new String[cfg.maxFires];
        this.stopIndex = new byte[cfg.maxFires];
        sessionId = new SessionID("FIX.4.4", cfg.senderCompId, cfg.targetCompId);
        String text = String.join("\n",
                "[DEFAULT]",
                "ConnectionType=initiator",
                "NonStopSession=Y",
                "HeartBtInt=" + cfg.heartBtInt,
                "ReconnectInterval=1",
                "ResetOnLogon=Y",
                "SocketTcpNoDelay=Y",
                // the data dictionary is what lets QuickFIX/J parse the 268 repeating group of a 35=W
                "UseDataDictionary=Y",
                "DataDictionary=FIX44.xml",
                "ValidateUserDefinedFields=N",
                "SocketConnectHost=" + cfg.host,
                "SocketConnectPort=" + cfg.port,
                cfg.logDir == null ? "" : "FileLogPath=" + cfg.logDir,
                "[SESSION]",
                "BeginString=FIX.4.4",
                "SenderCompID=" + cfg.senderCompId,
                "TargetCompID=" + cfg.targetCompId,
                "");
        SessionSettings settings = new SessionSettings(new ByteArrayInputStream(text.getBytes(StandardCharsets.US_ASCII)));
        // QuickFIX/J's default without a LogFactory is a ScreenLog of every message: not on the hot path
        LogFactory logs = cfg.logDir == null ? id -> ERRORS_ONLY : new FileLogFactory(settings);
        initiator = new SocketInitiator(this, new MemoryStoreFactory(), settings, logs, new DefaultMessageFactory());
    }

    public void start() throws ConfigError { initiator.start(); }

    public boolean awaitLogon(long timeoutMs) throws InterruptedException {
        return loggedOn.await(timeoutMs, TimeUnit.MILLISECONDS);
    }

    /** Sends the market-data subscription for every symbol of the stop list (bid, offer and trade entries). */
    public void subscribe() {
        Message v = new quickfix.fix44.MarketDataRequest();
        v.setString(262, cfg.clOrdIdPrefix + "-MD1");
        v.setChar(263, '1');
        v.setInt(264, 1);
        v.setChar(265, '0');
        for (char t : new char[] {'0', '1', '2'}) {
            Group g = new quickfix.fix44.MarketDataRequest.NoMDEntryTypes();
            g.setChar(269, t);
            v.addGroup(g);
        }
        for (String s : stops().stream().map(Stop::symbol).distinct().toList()) {
            Group g = new quickfix.fix44.MarketDataRequest.NoRelatedSym();
            g.setString(55, s);
            v.addGroup(g);
        }
        if (!session.send(v)) throw new IllegalStateException("market data request not sent");
    }

    /** True once maxFires orders were sent; false after timeoutMs or when the run failed (see failure()). */
    public boolean awaitDone(long timeoutMs) throws InterruptedException {
        return done.await(timeoutMs, TimeUnit.MILLISECONDS) && failure == null;
    }

    public String failure() { return failure; }
    public int fires() { return firesPublished; }
    public int fills() { return fills.get(); }
    public int rejects() { return rejects.get(); }
    public int marketDataMessages() { return marketData.get(); }
    public List<Stop> stops() { return List.of(stops); }
    public boolean isLoggedOut() { return loggedOut; }

    /** The ClOrdID of fire n (0-based). */
    public String clOrdId(int n) { return cfg.clOrdIdPrefix + (n + 1); }

    /** Per fire: ClOrdID, stop index, side, stop, trade price, ns from fromApp entry to Session.send's return. */
    public void writeFires(Path file) throws IOException {
        int n = firesPublished;
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file))) {
            w.println("clordid,stop,side,stop_px,trade_px,callback_to_sent_ns");
            for (int i = 0; i < n; i++) {
                Stop s = stops[stopIndex[i]];
                w.println(clOrdId(i) + "," + stopIndex[i] + "," + (s.side() == '1' ? "buy" : "sell") + ","
                        + s.stop().toPlainString() + "," + tradePx[i] + "," + (tSent[i] - tIn[i]));
            }
        }
    }

    @Override public void close() { initiator.stop(); }

    // ---- Application ---------------------------------------------------------------------------------

    @Override public void onCreate(SessionID id) {}

    @Override public void onLogon(SessionID id) {
        session = Session.lookupSession(id);
        loggedOn.countDown();
    }

    @Override public void onLogout(SessionID id) {
        loggedOut = true;
        if (done.getCount() > 0 && loggedOn.getCount() == 0) fail("logged out after " + firesPublished + " fires");
    }

    @Override public void toAdmin(Message m, SessionID id) {}
    @Override public void fromAdmin(Message m, SessionID id) {}
    @Override public void toApp(Message m, SessionID id) {}

    @Override public void fromApp(Message m, SessionID id) {
        long t0 = System.nanoTime();
        try {
            switch (m.getHeader().getString(35)) {
                case "W" -> onMarketData(m, t0);
                case "8" -> {
                    char execType = m.getChar(150);
                    if (execType == 'F') fills.incrementAndGet();
                    else if (execType == '8') rejects.incrementAndGet();
                }
                case "Y" -> fail("market data request rejected: " + m.getString(58));
                default -> { }
            }
        } catch (FieldNotFound e) {
            fail("malformed message (missing tag " + e.field + "): " + m);
        }
    }

    private void onMarketData(Message m, long t0) throws FieldNotFound {
        marketData.incrementAndGet();
        if (fires >= cfg.maxFires) return;
        Stop s = stops[armed];
        if (!s.symbol().equals(m.getString(55))) return;
        for (Group g : m.getGroups(268)) {
            if (g.getChar(269) != '2' || !g.isSetField(270)) continue;
            BigDecimal px = g.getDecimal(270);
            if (s.crossedBy(px)) {
                fire(s, px, t0);
                return;
            }
        }
    }

    private void fire(Stop s, BigDecimal px, long t0) {
        int n = fires;
        Message d = new quickfix.fix44.NewOrderSingle();
        d.setString(1, cfg.account);
        d.setString(11, clOrdId(n));
        d.setChar(21, '1');
        d.setString(38, s.qty());
        d.setChar(40, '2');
        d.setString(44, s.limit());
        d.setChar(54, s.side());
        d.setString(55, s.symbol());
        d.setChar(59, '0');
        d.setField(new TransactTime());
        boolean sent = session.send(d);
        tSent[n] = System.nanoTime();
        tIn[n] = t0;
        tradePx[n] = px.toPlainString();
        stopIndex[n] = (byte) armed;
        fires = n + 1;
        armed = (armed + 1) % stops.length;
        firesPublished = n + 1;
        if (!sent) fail("order " + clOrdId(n) + " not sent (session down?)");
        else if (n + 1 == cfg.maxFires) done.countDown();
    }

    private void fail(String why) {
        if (failure == null) failure = why;
        done.countDown();
    }
}
