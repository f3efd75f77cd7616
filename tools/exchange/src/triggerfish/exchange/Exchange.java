package triggerfish.exchange;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import quickfix.Application;
import quickfix.FieldMap;
import quickfix.FieldNotFound;
import quickfix.Group;
import quickfix.Message;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.SessionNotFound;
import quickfix.UnsupportedMessageType;
import quickfix.field.MsgType;
import quickfix.field.TestReqID;
import quickfix.field.TransactTime;

/**
 * The exchange: a QuickFIX/J Application in front of one limit order book per symbol.
 *
 * <p>All book work runs on one engine thread, one task per inbound message or market-maker step, so
 * nothing is locked and every session sees events in one global order. After each task the exchange
 * publishes market data for each symbol the task touched: one 35=W per trade print the task caused (each
 * carrying that print as its 269=2 entry), or one 35=W if the book changed without trading.
 */
public final class Exchange implements Application {
    /** A trade print: consecutive fills of one aggressor at one price are one print. */
    record Trade(String symbol, BigDecimal price, long qty) {}

    private final Map<String, OrderBook> books = new LinkedHashMap<>();
    private final Map<String, Trade> lastTrade = new HashMap<>();
    private final MarketData marketData;
    private final Consumer<String> events;
    private final ExecutorService engine = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "exchange-engine");
        t.setDaemon(true);
        return t;
    });
    private final CompletableFuture<Void> firstSubscriber = new CompletableFuture<>();
    // per session: every ClOrdID seen, and every order by its current ClOrdID (cancels look up OrigClOrdID)
    private final Map<SessionID, Set<String>> clOrdIds = new HashMap<>();
    private final Map<SessionID, Map<String, Order>> ordersByClOrdId = new HashMap<>();
    // work of the running task, published when it ends
    private final Map<String, List<Trade>> pendingTrades = new LinkedHashMap<>();
    private long nextOrder = 1, nextExec = 1;
    // step sync (--step-sync): TestRequests sent to subscribers, each completed by the Heartbeat that answers it
    private final Map<SessionID, Map<String, CompletableFuture<Void>>> syncs = new java.util.concurrent.ConcurrentHashMap<>();

    public Exchange(Iterable<String> symbols, Consumer<String> events) {
        for (String s : symbols) books.put(s, new OrderBook(s));
        this.events = events;
        this.marketData = new MarketData(this::send);
    }

    public Set<String> symbols() { return books.keySet(); }

    /** Completes when the first market-data subscription arrives (the market maker may wait for it). */
    public CompletableFuture<Void> firstSubscriber() { return firstSubscriber; }

    // ---- engine thread ------------------------------------------------------------------------------

    /** Runs a task on the engine thread and publishes the market data it caused. */
    public Future<?> submit(Runnable task) {
        if (engine.isShutdown()) return CompletableFuture.completedFuture(null);
        return engine.submit(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                events.accept("ERROR " + e);
                e.printStackTrace();
            } finally {
                publish();
            }
        });
    }

    void shutdown() {
        engine.shutdown();
        try {
            engine.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    Trade lastTrade(String symbol) { return lastTrade.get(symbol); }

    private void publish() {
        for (String symbol : pendingTrades.keySet()) {
            List<Trade> trades = pendingTrades.get(symbol);
            OrderBook book = books.get(symbol);
            if (trades.isEmpty()) marketData.publish(book, lastTrade.get(symbol));
            for (Trade t : trades) marketData.publish(book, t);
        }
        pendingTrades.clear();
    }

    private void touched(String symbol) { pendingTrades.computeIfAbsent(symbol, s -> new ArrayList<>()); }

    // ---- QuickFIX/J Application ---------------------------------------------------------------------

    @Override public void onCreate(SessionID id) {}

    @Override public void onLogon(SessionID id) { events.accept("LOGON " + id.getTargetCompID() + " (" + id + ")"); }

    @Override public void onLogout(SessionID id) {
        events.accept("LOGOUT " + id.getTargetCompID());
        Map<String, CompletableFuture<Void>> waiting = syncs.remove(id);   // nobody will answer them now
        if (waiting != null) waiting.values().forEach(f -> f.complete(null));
        submit(() -> marketData.dropSession(id));
    }

    @Override public void toAdmin(Message message, SessionID id) {}

    @Override public void fromAdmin(Message message, SessionID id) {
        try {
            if (!"0".equals(message.getHeader().getString(MsgType.FIELD)) || !message.isSetField(TestReqID.FIELD)) return;
            Map<String, CompletableFuture<Void>> waiting = syncs.get(id);
            CompletableFuture<Void> f = waiting == null ? null : waiting.remove(message.getString(TestReqID.FIELD));
            if (f != null) f.complete(null);
        } catch (FieldNotFound e) {
            // not ours
        }
    }

    /**
     * Step sync: sends a TestRequest (112=reqId) to every session subscribed to market data and returns a future
     * that completes when each has answered with its Heartbeat, or has logged out. A FIX engine answers in order,
     * so by then it has read every message sent before: a slow subscriber (the simulated SoC) sets the pace of
     * the price path instead of falling behind it. Runs on the engine thread (after a step's messages).
     */
    CompletableFuture<Void> syncSubscribers(String reqId) {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (SessionID id : marketData.sessions()) {
            Session session = Session.lookupSession(id);
            if (session == null || !session.isLoggedOn()) continue;
            CompletableFuture<Void> f = new CompletableFuture<>();
            syncs.computeIfAbsent(id, k -> new java.util.concurrent.ConcurrentHashMap<>()).put(reqId, f);
            Message m = new Message();
            m.getHeader().setString(MsgType.FIELD, "1");
            m.setString(TestReqID.FIELD, reqId);
            send(id, m);
            all.add(f);
        }
        return CompletableFuture.allOf(all.toArray(new CompletableFuture[0]));
    }

    /** A future completed by the Heartbeat that answers TestRequest reqId on session id (or by its logout). */
    CompletableFuture<Void> expectHeartbeat(SessionID id, String reqId) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        syncs.computeIfAbsent(id, k -> new java.util.concurrent.ConcurrentHashMap<>()).put(reqId, f);
        return f;
    }

    /**
     * The burst command (control FIFO): finds the first session subscribed to the burst's symbol, rests the
     * market maker's liquidity at its bid and ask (so that the orders of crossed stops fill), then sends the burst
     * on a thread of its own. Returns false (and says why) when there is no subscriber.
     */
    boolean startBurst(Burst.Spec spec) throws Exception {
        CompletableFuture<MarketData.Subscription> sub = new CompletableFuture<>();
        submit(() -> {
            if (!books.containsKey(spec.symbol)) { sub.complete(null); return; }
            sub.complete(marketData.firstSubscriber(spec.symbol));
            if (spec.liquidity > 0 && sub.getNow(null) != null) {
                submitInternal(MarketMaker.OWNER, spec.symbol, Order.BUY, spec.bid, spec.liquidity, Order.DAY);
                submitInternal(MarketMaker.OWNER, spec.symbol, Order.SELL, spec.ask, spec.liquidity, Order.DAY);
            }
        }).get();
        MarketData.Subscription s = sub.get();
        if (s == null) {
            events.accept("BURST ERROR no session subscribed to " + spec.symbol);
            return false;
        }
        Thread t = new Thread(new Burst(this, spec, s.session(), s.reqId(), events), "burst");
        t.setDaemon(true);
        t.start();
        return true;
    }

    @Override public void toApp(Message message, SessionID id) {}

    @Override public void fromApp(Message message, SessionID id) throws FieldNotFound, UnsupportedMessageType {
        String type = message.getHeader().getString(MsgType.FIELD);
        switch (type) {
            case "D" -> submit(() -> onNewOrder(message, id));
            case "F" -> submit(() -> onCancel(message, id));
            case "V" -> submit(() -> onMarketDataRequest(message, id));
            default -> throw new UnsupportedMessageType();
        }
    }

    // ---- orders -------------------------------------------------------------------------------------

    private void onNewOrder(Message m, SessionID id) {
        String who = id.getTargetCompID();
        String clOrdId = str(m, 11, null);
        String symbol = str(m, 55, null);
        char side = chr(m, 54, ' ');
        char ordType = chr(m, 40, ' ');
        char tif = chr(m, 59, Order.DAY);
        String qtyText = str(m, 38, null);
        String pxText = str(m, 44, null);

        if (!clOrdIds.computeIfAbsent(id, s -> new HashSet<>()).add(clOrdId)) {
            reject(m, id, 6, "duplicate ClOrdID " + clOrdId);
            return;
        }
        if (!books.containsKey(symbol)) { reject(m, id, 1, "unknown symbol " + symbol); return; }
        if (side != Order.BUY && side != Order.SELL) { reject(m, id, 11, "unsupported side " + side); return; }
        if (ordType != Order.LIMIT && ordType != Order.MARKET) {
            reject(m, id, 11, "unsupported order type " + ordType);
            return;
        }
        if (tif != Order.DAY && tif != Order.GTC && tif != Order.IOC) {
            reject(m, id, 11, "unsupported time in force " + tif);
            return;
        }
        long qty;
        try {
            BigDecimal q = new BigDecimal(qtyText);
            if (q.signum() <= 0) throw new NumberFormatException();
            qty = q.longValueExact();
        } catch (RuntimeException e) {
            reject(m, id, 13, "bad quantity " + qtyText);
            return;
        }
        BigDecimal price = null;
        if (ordType == Order.LIMIT) {
            try {
                price = new BigDecimal(pxText);
                if (price.signum() <= 0) throw new NumberFormatException();
            } catch (RuntimeException e) {
                reject(m, id, 99, "bad price " + pxText);
                return;
            }
        }
        Order o = new Order(nextOrder++, id, who, str(m, 1, null), clOrdId, symbol, side, ordType, tif, price, qty);
        ordersByClOrdId.computeIfAbsent(id, s -> new HashMap<>()).put(clOrdId, o);
        events.accept("ORDER " + o + (ordType == Order.MARKET ? " (market)" : "") + " -> " + o.orderId);
        report(o, '0', null, 0, null, null);
        execute(o);
    }

    /** Enters an order into its book: trade what crosses, rest the remainder of a limit day order. */
    private void execute(Order o) {
        OrderBook book = books.get(o.symbol);
        touched(o.symbol);
        Trade[] print = {null};
        book.match(o, f -> {
            report(f.aggressor(), 'F', f.price(), f.qty(), null, null);
            report(f.resting(), 'F', f.price(), f.qty(), null, null);
            Order buy = o.side == Order.BUY ? f.aggressor() : f.resting();
            Order sell = o.side == Order.BUY ? f.resting() : f.aggressor();
            events.accept("FILL " + o.symbol + " " + f.qty() + " @ " + Order.px(f.price())
                    + " buyer=" + buy.owner + "/" + buy.clOrdId + " seller=" + sell.owner + "/" + sell.clOrdId);
            Trade p = print[0];
            if (p != null && p.price().compareTo(f.price()) == 0) {
                print[0] = new Trade(o.symbol, p.price(), p.qty() + f.qty());
            } else {
                if (p != null) recordTrade(p);
                print[0] = new Trade(o.symbol, f.price(), f.qty());
            }
        });
        if (print[0] != null) recordTrade(print[0]);
        if (o.leaves() == 0) return;
        if (o.ordType == Order.MARKET || o.tif == Order.IOC) {
            o.status = Order.CANCELED;
            report(o, '4', null, 0, o.ordType == Order.MARKET ? "market order remainder canceled: no more liquidity"
                    : "IOC remainder canceled", null);
            if (o.session != null) events.accept("CANCEL " + o + " remainder " + (o.qty - o.cumQty) + " (IOC/market)");
        } else {
            book.rest(o);
        }
    }

    private void recordTrade(Trade t) {
        lastTrade.put(t.symbol(), t);
        pendingTrades.get(t.symbol()).add(t);
    }

    private void onCancel(Message m, SessionID id) {
        String clOrdId = str(m, 11, null), orig = str(m, 41, null);
        Order o = ordersByClOrdId.getOrDefault(id, Map.of()).get(orig);
        if (!clOrdIds.computeIfAbsent(id, s -> new HashSet<>()).add(clOrdId)) {
            cancelReject(id, clOrdId, orig, o, 6, "duplicate ClOrdID " + clOrdId);
        } else if (o == null) {
            cancelReject(id, clOrdId, orig, null, 1, "unknown order " + orig);
        } else if (!o.isOpen()) {
            cancelReject(id, clOrdId, orig, o, 0, "too late to cancel: order is " + statusName(o.status));
        } else {
            books.get(o.symbol).remove(o);
            touched(o.symbol);
            o.status = Order.CANCELED;
            o.clOrdId = clOrdId;
            ordersByClOrdId.get(id).put(clOrdId, o);
            events.accept("CANCEL " + o + " orig=" + orig + " leaves=" + (o.qty - o.cumQty));
            report(o, '4', null, 0, null, orig);
        }
    }

    // ---- internal participants (market maker) ------------------------------------------------------

    /** Enters an order for an internal participant; call on the engine thread (inside submit()). */
    Order submitInternal(String owner, String symbol, char side, BigDecimal price, long qty, char tif) {
        long seq = nextOrder++;
        Order o = new Order(seq, null, owner, null, owner + seq, symbol, side,
                price == null ? Order.MARKET : Order.LIMIT, tif, price, qty);
        execute(o);
        return o;
    }

    /** Cancels an internal order if it is still open; call on the engine thread. */
    void cancelInternal(Order o) {
        if (!o.isOpen()) return;
        books.get(o.symbol).remove(o);
        o.status = Order.CANCELED;
        touched(o.symbol);
    }

    // ---- market data ------------------------------------------------------------------------------

    private void onMarketDataRequest(Message m, SessionID id) {
        String reqId = str(m, 262, null);
        char type = chr(m, 263, ' ');
        List<String> symbols = new ArrayList<>();
        for (Group g : m.getGroups(146)) symbols.add(str(g, 55, null));
        String who = id.getTargetCompID();
        if (type == '2') {
            int n = marketData.unsubscribe(id, reqId);
            events.accept("MD UNSUBSCRIBE " + who + " reqId=" + reqId + " (" + n + " symbols)");
            return;
        }
        String problem = null;
        char reason = '0';
        if (type != '0' && type != '1') { problem = "unsupported SubscriptionRequestType " + type; reason = '4'; }
        else if (symbols.isEmpty()) problem = "no symbols requested";
        else if (type == '1' && marketData.hasRequest(id, reqId)) { problem = "duplicate MDReqID " + reqId; reason = '1'; }
        else for (String s : symbols) if (!books.containsKey(s)) { problem = "unknown symbol " + s; break; }
        if (problem != null) {
            events.accept("MD REJECT " + who + " reqId=" + reqId + ": " + problem);
            Message y = new quickfix.fix44.MarketDataRequestReject();
            y.setString(262, reqId);
            y.setChar(281, reason);
            y.setString(58, problem);
            send(id, y);
            return;
        }
        events.accept("MD " + (type == '1' ? "SUBSCRIBE " : "SNAPSHOT ") + who + " reqId=" + reqId + " " + symbols);
        for (String s : symbols) {
            if (type == '1') marketData.subscribe(s, id, reqId);
            marketData.sendSnapshot(id, reqId, books.get(s), lastTrade.get(s));
        }
        if (type == '1') firstSubscriber.complete(null);
    }

    // ---- execution reports ------------------------------------------------------------------------

    private void report(Order o, char execType, BigDecimal lastPx, long lastQty, String text, String origClOrdId) {
        if (o.session == null) return;
        Message er = new quickfix.fix44.ExecutionReport();
        er.setString(37, o.orderId);
        er.setString(11, o.clOrdId);
        if (origClOrdId != null) er.setString(41, origClOrdId);
        er.setString(17, "E" + nextExec++);
        er.setChar(150, execType);
        er.setChar(39, o.status);
        if (o.account != null) er.setString(1, o.account);
        er.setString(55, o.symbol);
        er.setChar(54, o.side);
        er.setString(38, Long.toString(o.qty));
        er.setChar(40, o.ordType);
        if (o.price != null) er.setString(44, Order.px(o.price));
        er.setChar(59, o.tif);
        if (lastPx != null) {
            er.setString(31, Order.px(lastPx));
            er.setString(32, Long.toString(lastQty));
        }
        er.setString(151, Long.toString(o.leaves()));
        er.setString(14, Long.toString(o.cumQty));
        er.setString(6, o.avgPx().toPlainString());
        er.setField(new TransactTime());
        if (text != null) er.setString(58, text);
        send(o.session, er);
    }

    /** 35=8 150=8 39=8 for a New Order Single that never became an order; echoes what the client sent. */
    private void reject(Message in, SessionID id, int reason, String text) {
        events.accept("REJECT " + id.getTargetCompID() + "/" + str(in, 11, "?") + ": " + text);
        Message er = new quickfix.fix44.ExecutionReport();
        er.setString(37, "NONE");
        er.setString(17, "E" + nextExec++);
        er.setChar(150, '8');
        er.setChar(39, '8');
        for (int tag : new int[] {11, 1, 55, 54, 38, 40, 44, 59}) {
            String v = str(in, tag, null);
            if (v != null) er.setString(tag, v);
        }
        er.setString(151, "0");
        er.setString(14, "0");
        er.setString(6, "0");
        er.setField(new TransactTime());
        er.setString(58, text);
        er.setInt(103, reason);
        send(id, er);
    }

    private void cancelReject(SessionID id, String clOrdId, String orig, Order o, int reason, String text) {
        events.accept("CANCEL REJECT " + id.getTargetCompID() + "/" + clOrdId + " orig=" + orig + ": " + text);
        Message r = new quickfix.fix44.OrderCancelReject();
        r.setString(37, o == null ? "NONE" : o.orderId);
        r.setString(11, clOrdId);
        r.setString(41, orig);
        r.setChar(39, o == null ? Order.REJECTED : o.status);
        r.setChar(434, '1');
        r.setInt(102, reason);
        r.setString(58, text);
        send(id, r);
    }

    private static String statusName(char s) {
        return switch (s) {
            case Order.FILLED -> "filled";
            case Order.CANCELED -> "canceled";
            case Order.REJECTED -> "rejected";
            default -> "open";
        };
    }

    private static String str(FieldMap m, int tag, String dflt) { return m.getOptionalString(tag).orElse(dflt); }

    private static char chr(FieldMap m, int tag, char dflt) {
        String v = str(m, tag, null);
        return v != null && v.length() == 1 ? v.charAt(0) : dflt;
    }

    private void send(SessionID id, Message m) {
        try {
            Session.sendToTarget(m, id);
        } catch (SessionNotFound e) {
            events.accept("WARN no session " + id);
        }
    }
}
