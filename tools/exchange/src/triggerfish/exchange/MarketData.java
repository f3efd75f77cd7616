package triggerfish.exchange;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import quickfix.Group;
import quickfix.Message;
import quickfix.SessionID;

/**
 * Market-data subscriptions and 35=W snapshots. A snapshot carries, in this order and each only when present:
 * the best bid (269=0 270 271 290=1), the best offer (269=1 270 271 290=1) and the last trade (269=2 270 271),
 * after 55 Symbol, 262 MDReqID and 268 NoMDEntries (the shape of the paper's exchange, DESIGN.md).
 * Sizes are the total quantity at the best price. Used on the exchange's engine thread only.
 */
final class MarketData {
    record Subscription(SessionID session, String reqId) {}

    private final Map<String, List<Subscription>> bySymbol = new LinkedHashMap<>();
    private final BiConsumer<SessionID, Message> sender;

    MarketData(BiConsumer<SessionID, Message> sender) { this.sender = sender; }

    void subscribe(String symbol, SessionID session, String reqId) {
        bySymbol.computeIfAbsent(symbol, s -> new ArrayList<>()).add(new Subscription(session, reqId));
    }

    /** The first subscription to a symbol, or null. */
    Subscription firstSubscriber(String symbol) {
        List<Subscription> subs = bySymbol.getOrDefault(symbol, List.of());
        return subs.isEmpty() ? null : subs.get(0);
    }

    boolean hasRequest(SessionID session, String reqId) {
        for (List<Subscription> subs : bySymbol.values())
            for (Subscription s : subs) if (s.session().equals(session) && s.reqId().equals(reqId)) return true;
        return false;
    }

    /** Ends the subscriptions of one request; returns how many symbols it covered. */
    int unsubscribe(SessionID session, String reqId) {
        int n = 0;
        for (List<Subscription> subs : bySymbol.values()) {
            int before = subs.size();
            subs.removeIf(s -> s.session().equals(session) && s.reqId().equals(reqId));
            n += before - subs.size();
        }
        return n;
    }

    /** Every session with at least one subscription. */
    java.util.Set<SessionID> sessions() {
        java.util.Set<SessionID> out = new java.util.LinkedHashSet<>();
        for (List<Subscription> subs : bySymbol.values()) for (Subscription s : subs) out.add(s.session());
        return out;
    }

    void dropSession(SessionID session) {
        for (List<Subscription> subs : bySymbol.values()) subs.removeIf(s -> s.session().equals(session));
    }

    /** Sends the current snapshot of a book (with the given trade as its 269=2 entry) to every subscriber. */
    void publish(OrderBook book, Exchange.Trade trade) {
        for (Subscription s : bySymbol.getOrDefault(book.symbol, List.of()))
            sendSnapshot(s.session(), s.reqId(), book, trade);
    }

    void sendSnapshot(SessionID session, String reqId, OrderBook book, Exchange.Trade trade) {
        sender.accept(session, snapshot(reqId, book, trade));
    }

    static Message snapshot(String reqId, OrderBook book, Exchange.Trade trade) {
        Message w = new quickfix.fix44.MarketDataSnapshotFullRefresh();
        w.setString(55, book.symbol);
        w.setString(262, reqId);
        OrderBook.Level bid = book.top(Order.BUY), offer = book.top(Order.SELL);
        if (bid != null) w.addGroup(entry('0', bid.price().stripTrailingZeros().toPlainString(), bid.qty(), true));
        if (offer != null) w.addGroup(entry('1', offer.price().stripTrailingZeros().toPlainString(), offer.qty(), true));
        if (trade != null) w.addGroup(entry('2', trade.price().stripTrailingZeros().toPlainString(), trade.qty(), false));
        if (bid == null && offer == null && trade == null) w.setInt(268, 0);
        return w;
    }

    private static Group entry(char type, String px, long qty, boolean position) {
        Group g = new quickfix.fix44.MarketDataSnapshotFullRefresh.NoMDEntries();
        g.setChar(269, type);
        g.setString(270, px);
        g.setString(271, Long.toString(qty));
        if (position) g.setInt(290, 1);
        return g;
    }
}
