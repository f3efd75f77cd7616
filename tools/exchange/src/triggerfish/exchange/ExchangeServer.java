package triggerfish.exchange;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.mina.core.service.IoAcceptor;
import quickfix.ConfigError;
import quickfix.DefaultMessageFactory;
import quickfix.FileLogFactory;
import quickfix.FileStoreFactory;
import quickfix.LogFactory;
import quickfix.MessageFactory;
import quickfix.MessageStore;
import quickfix.MessageStoreFactory;
import quickfix.SessionID;
import quickfix.SessionSettings;
import quickfix.SocketAcceptor;
import quickfix.mina.acceptor.DynamicAcceptorSessionProvider;

/**
 * The exchange process minus its command line: QuickFIX/J settings (with overrides), the acceptor, the
 * exchange application and the optional market maker. Sections with AcceptorTemplate=Y accept any
 * initiator whose CompIDs match them (so a second participant can log on without its own section).
 */
public final class ExchangeServer implements AutoCloseable {
    public static final class Options {
        public Path settings;
        public Path pricePath;
        public List<String> symbols = new ArrayList<>();
        public Path logDir;
        public Path control;          // a named pipe of commands (burst ...), made by the caller
        public Integer port;          // 0: any free port
        public String bind;           // SocketAcceptAddress override
        public long quoteSize = 100;
        public boolean loop, waitForSubscriber, keepSeqNums, stepSync;
    }

    public static final String DEFAULT_SYMBOL = "MSFT";

    private final Exchange exchange;
    private final SocketAcceptor acceptor;
    private final MarketMaker marketMaker;
    private final Consumer<String> events;
    private final int port;

    private ExchangeServer(Exchange exchange, SocketAcceptor acceptor, MarketMaker mm, Consumer<String> events, int port) {
        this.exchange = exchange;
        this.acceptor = acceptor;
        this.marketMaker = mm;
        this.events = events;
        this.port = port;
    }

    public static ExchangeServer start(Options o, Consumer<String> events) throws Exception {
        SessionSettings settings = new SessionSettings(o.settings.toString());
        override(settings, o);

        PricePath path = o.pricePath == null ? null : PricePath.load(o.pricePath);
        Set<String> symbols = new LinkedHashSet<>(o.symbols);
        if (path != null) symbols.addAll(path.symbols());
        if (symbols.isEmpty()) symbols.add(DEFAULT_SYMBOL);

        Exchange exchange = new Exchange(symbols, events);
        MessageStoreFactory stores = new FileStoreFactory(settings);
        if (!o.keepSeqNums) stores = resetting(stores);
        LogFactory logs = new FileLogFactory(settings);
        MessageFactory messages = new DefaultMessageFactory();
        SocketAcceptor acceptor = new SocketAcceptor(exchange, stores, settings, logs, messages);
        for (Iterator<SessionID> it = settings.sectionIterator(); it.hasNext(); ) {
            SessionID id = it.next();
            if (settings.getBoolOrDefault(id, "AcceptorTemplate", false)) {
                acceptor.setSessionProvider(acceptAddress(settings, id),
                        new DynamicAcceptorSessionProvider(settings, id, exchange, stores, logs, messages));
            }
        }
        acceptor.start();
        int bound = -1;
        for (IoAcceptor a : acceptor.getEndpoints()) {
            SocketAddress local = a.getLocalAddress();
            if (local instanceof InetSocketAddress inet) { bound = inet.getPort(); break; }
        }

        MarketMaker mm = null;
        if (path != null) {
            mm = new MarketMaker(exchange, path, o.quoteSize, o.loop, o.waitForSubscriber, o.stepSync, events);
            mm.start();
        }
        if (o.control != null) startControl(o.control, exchange, events);
        events.accept("EXCHANGE symbols=" + String.join(",", symbols)
                + (path != null ? " path=" + o.pricePath + " (" + path.steps().size() + " steps)" : ""));
        return new ExchangeServer(exchange, acceptor, mm, events, bound);
    }

    /**
     * Reads commands from a named pipe, one a line, for as long as the process runs (reopened whenever its
     * writers close it). Commands: `burst ...` (Burst). An unknown or malformed command is answered with a
     * `CONTROL ERROR` line on stdout; nothing else happens.
     */
    private static void startControl(Path fifo, Exchange exchange, Consumer<String> events) {
        Thread t = new Thread(() -> {
            while (true) {
                try (java.io.BufferedReader r = java.nio.file.Files.newBufferedReader(fifo)) {
                    for (String line; (line = r.readLine()) != null; ) {
                        line = line.trim();
                        if (line.isEmpty()) continue;
                        events.accept("CONTROL " + line);
                        try {
                            if (line.startsWith("burst ")) exchange.startBurst(Burst.parse(line));
                            else events.accept("CONTROL ERROR unknown command (burst N segment|coalesced ...)");
                        } catch (Exception e) {
                            events.accept("CONTROL ERROR " + e.getMessage());
                        }
                    }
                } catch (java.io.IOException e) {
                    events.accept("CONTROL ERROR cannot read " + fifo + ": " + e.getMessage());
                    return;
                }
            }
        }, "control");
        t.setDaemon(true);
        t.start();
    }

    /** The TCP port the acceptor listens on. */
    public int port() { return port; }

    public Exchange exchange() { return exchange; }

    @Override public void close() {
        if (marketMaker != null) marketMaker.stop();
        acceptor.stop();   // logs every session out, then closes the sockets
        exchange.shutdown();
        events.accept("EXCHANGE STOPPED");
    }

    private static void override(SessionSettings s, Options o) {
        List<SessionID> sections = new ArrayList<>();
        s.sectionIterator().forEachRemaining(sections::add);
        if (o.port != null) {
            s.setLong("SocketAcceptPort", o.port);
            for (SessionID id : sections) s.setLong(id, "SocketAcceptPort", o.port);
        }
        if (o.bind != null) {
            s.setString("SocketAcceptAddress", o.bind);
            for (SessionID id : sections) s.setString(id, "SocketAcceptAddress", o.bind);
        }
        if (o.logDir != null) {
            s.setString("FileLogPath", o.logDir.resolve("log").toString());
            s.setString("FileStorePath", o.logDir.resolve("store").toString());
            for (SessionID id : sections) {
                s.setString(id, "FileLogPath", o.logDir.resolve("log").toString());
                s.setString(id, "FileStorePath", o.logDir.resolve("store").toString());
            }
        }
    }

    private static SocketAddress acceptAddress(SessionSettings s, SessionID id) throws ConfigError {
        try {
            String host = s.getStringOrDefault(id, "SocketAcceptAddress", "0.0.0.0");
            return new InetSocketAddress(host, (int) s.getLong(id, "SocketAcceptPort"));
        } catch (quickfix.FieldConvertError e) {
            throw new ConfigError(e);
        }
    }

    /** Each exchange run is a new trading day: sequence numbers start at 1 (unless --keep-seqnums). */
    private static MessageStoreFactory resetting(MessageStoreFactory inner) {
        return id -> {
            MessageStore store = inner.create(id);
            try {
                store.reset();
            } catch (java.io.IOException e) {
                throw new RuntimeException("cannot reset message store of " + id, e);
            }
            return store;
        };
    }
}
