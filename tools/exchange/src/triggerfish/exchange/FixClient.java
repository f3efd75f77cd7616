package triggerfish.exchange;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import quickfix.Application;
import quickfix.FileLogFactory;
import quickfix.LogFactory;
import quickfix.SLF4JLogFactory;
import quickfix.Group;
import quickfix.MemoryStoreFactory;
import quickfix.Message;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.SessionNotFound;
import quickfix.SessionSettings;
import quickfix.SocketInitiator;
import quickfix.DefaultMessageFactory;
import quickfix.field.TransactTime;

/**
 * A small FIX 4.4 initiator playing a market participant (tests, or a second trader next to the SoC).
 * Every application message it receives is queued by MsgType; take them with {@link #next}.
 */
public final class FixClient implements Application, AutoCloseable {
    private final SessionID sessionId;
    private final SocketInitiator initiator;
    private final CountDownLatch loggedOn = new CountDownLatch(1);
    private final Map<String, BlockingQueue<Message>> inbox = new ConcurrentHashMap<>();
    private volatile boolean loggedOut;
    private volatile CountDownLatch testRequestGate;   // holds the answer to TestRequests while set

    /** Connects to host:port as senderCompId; logs messages into logDir, or through SLF4J when it is null. */
    public FixClient(String host, int port, String senderCompId, String targetCompId, Path logDir) throws Exception {
        sessionId = new SessionID("FIX.4.4", senderCompId, targetCompId);
        String cfg = String.join("\n",
                "[DEFAULT]",
                "ConnectionType=initiator",
                "NonStopSession=Y",
                "HeartBtInt=30",
                "ReconnectInterval=1",
                "ResetOnLogon=Y",
                "UseDataDictionary=Y",
                "DataDictionary=FIX44.xml",
                "ValidateUserDefinedFields=N",
                "SocketConnectHost=" + host,
                "SocketConnectPort=" + port,
                logDir == null ? "" : "FileLogPath=" + logDir,
                "[SESSION]",
                "BeginString=FIX.4.4",
                "SenderCompID=" + senderCompId,
                "TargetCompID=" + targetCompId,
                "");
        SessionSettings settings = new SessionSettings(new ByteArrayInputStream(cfg.getBytes(StandardCharsets.US_ASCII)));
        LogFactory log = logDir == null ? new SLF4JLogFactory(settings) : new FileLogFactory(settings);
        initiator = new SocketInitiator(this, new MemoryStoreFactory(), settings, log, new DefaultMessageFactory());
        initiator.start();
    }

    public boolean awaitLogon(long timeoutMs) throws InterruptedException {
        return loggedOn.await(timeoutMs, TimeUnit.MILLISECONDS);
    }

    public boolean isLoggedOut() { return loggedOut; }

    public SessionID sessionId() { return sessionId; }

    public void send(Message m) {
        try {
            if (!Session.sendToTarget(m, sessionId)) throw new IllegalStateException("not sent: " + m);
        } catch (SessionNotFound e) {
            throw new IllegalStateException(e);
        }
    }

    /** The next received message of a type ("8", "W", "9", "Y", "3", ...), or null after timeoutMs. */
    public Message next(String msgType, long timeoutMs) throws InterruptedException {
        return queue(msgType).poll(timeoutMs, TimeUnit.MILLISECONDS);
    }

    private BlockingQueue<Message> queue(String msgType) {
        return inbox.computeIfAbsent(msgType, k -> new LinkedBlockingQueue<>());
    }

    // ---- message builders --------------------------------------------------------------------------

    /** New Order Single in the field set the SoC sends (DESIGN.md); price null makes a market order. */
    public static Message newOrder(String clOrdId, char side, String qty, String symbol, String price) {
        Message m = new quickfix.fix44.NewOrderSingle();
        m.setString(1, "ACC1");
        m.setString(11, clOrdId);
        m.setChar(21, '1');
        m.setString(38, qty);
        m.setChar(40, price == null ? '1' : '2');
        if (price != null) m.setString(44, price);
        m.setChar(54, side);
        m.setString(55, symbol);
        m.setChar(59, '0');
        m.setField(new TransactTime());
        return m;
    }

    public static Message cancel(String clOrdId, String origClOrdId, char side, String symbol) {
        Message m = new quickfix.fix44.OrderCancelRequest();
        m.setString(11, clOrdId);
        m.setString(41, origClOrdId);
        m.setChar(54, side);
        m.setString(55, symbol);
        m.setField(new TransactTime());
        return m;
    }

    /** Market Data Request: type '1' subscribe, '2' unsubscribe, '0' one snapshot; bid, offer and trade entries. */
    public static Message marketDataRequest(String reqId, char type, String... symbols) {
        Message m = new quickfix.fix44.MarketDataRequest();
        m.setString(262, reqId);
        m.setChar(263, type);
        m.setInt(264, 1);
        for (char t : new char[] {'0', '1', '2'}) {
            Group g = new quickfix.fix44.MarketDataRequest.NoMDEntryTypes();
            g.setChar(269, t);
            m.addGroup(g);
        }
        for (String s : symbols) {
            Group g = new quickfix.fix44.MarketDataRequest.NoRelatedSym();
            g.setString(55, s);
            m.addGroup(g);
        }
        return m;
    }

    // ---- Application --------------------------------------------------------------------------------

    @Override public void onCreate(SessionID id) {}
    @Override public void onLogon(SessionID id) { loggedOn.countDown(); }
    @Override public void onLogout(SessionID id) { loggedOut = true; }
    @Override public void toAdmin(Message m, SessionID id) {}
    @Override public void toApp(Message m, SessionID id) {}

    @Override public void fromAdmin(Message m, SessionID id) {
        try {
            String type = m.getHeader().getString(35);
            if (type.equals("3") || type.equals("5") || type.equals("1")) queue(type).add(m);   // Reject, Logout, TestRequest
            CountDownLatch gate = testRequestGate;
            if (type.equals("1") && gate != null) gate.await();   // QuickFIX/J sends the Heartbeat after this returns
        } catch (quickfix.FieldNotFound e) {
            // every message has 35
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** While the latch is not counted down, this client's answers to TestRequests wait (a slow reader). */
    public void holdTestRequests(CountDownLatch gate) { testRequestGate = gate; }

    @Override public void fromApp(Message m, SessionID id) {
        try {
            queue(m.getHeader().getString(35)).add(m);
        } catch (quickfix.FieldNotFound e) {
            // every message has 35
        }
    }

    @Override public void close() { initiator.stop(); }
}
