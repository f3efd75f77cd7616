package triggerfish.exchange;

import java.math.BigDecimal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * One symbol's limit order book with price-time priority. Prices are exact decimals (1170.25 and 1170.250
 * are one level). Not thread-safe: the Exchange calls it from its single engine thread only.
 */
final class OrderBook {
    record Fill(Order aggressor, Order resting, BigDecimal price, long qty) {}
    record Level(BigDecimal price, long qty, int orders) {}

    final String symbol;
    private final TreeMap<BigDecimal, ArrayDeque<Order>> bids = new TreeMap<>(Comparator.reverseOrder());
    private final TreeMap<BigDecimal, ArrayDeque<Order>> asks = new TreeMap<>();

    OrderBook(String symbol) { this.symbol = symbol; }

    /** Trades the order against the opposite side, best price first, oldest first within a price. */
    List<Fill> match(Order o) { return match(o, f -> {}); }

    /** As match(o), calling onFill right after each fill (while both orders show their state after it). */
    List<Fill> match(Order o, Consumer<Fill> onFill) {
        List<Fill> fills = new ArrayList<>();
        TreeMap<BigDecimal, ArrayDeque<Order>> opposite = o.side == Order.BUY ? asks : bids;
        while (o.leaves() > 0 && !opposite.isEmpty()) {
            Map.Entry<BigDecimal, ArrayDeque<Order>> best = opposite.firstEntry();
            if (!o.crosses(best.getKey())) break;
            ArrayDeque<Order> queue = best.getValue();
            Order resting = queue.peekFirst();
            long q = Math.min(o.leaves(), resting.leaves());
            o.fill(q, best.getKey());
            resting.fill(q, best.getKey());
            Fill fill = new Fill(o, resting, best.getKey(), q);
            fills.add(fill);
            onFill.accept(fill);
            if (resting.leaves() == 0) {
                queue.pollFirst();
                if (queue.isEmpty()) opposite.pollFirstEntry();
            }
        }
        return fills;
    }

    /** Puts an open limit order at the back of its price level. */
    void rest(Order o) {
        if (o.price == null || o.leaves() == 0) throw new IllegalArgumentException("cannot rest " + o);
        side(o.side).computeIfAbsent(o.price, p -> new ArrayDeque<>()).addLast(o);
    }

    /** Takes an order out of the book; returns false if it was not resting here. */
    boolean remove(Order o) {
        if (o.price == null) return false;
        TreeMap<BigDecimal, ArrayDeque<Order>> side = side(o.side);
        ArrayDeque<Order> queue = side.get(o.price);
        if (queue == null || !queue.remove(o)) return false;
        if (queue.isEmpty()) side.remove(o.price);
        return true;
    }

    /** Best level of one side (price, total quantity, number of orders), or null when that side is empty. */
    Level top(char sideCode) {
        TreeMap<BigDecimal, ArrayDeque<Order>> side = side(sideCode);
        if (side.isEmpty()) return null;
        Map.Entry<BigDecimal, ArrayDeque<Order>> e = side.firstEntry();
        long total = 0;
        for (Order o : e.getValue()) total += o.leaves();
        return new Level(e.getKey(), total, e.getValue().size());
    }

    /** Every level of one side, best first (for tests and diagnostics). */
    List<Level> depth(char sideCode) {
        List<Level> out = new ArrayList<>();
        for (Map.Entry<BigDecimal, ArrayDeque<Order>> e : side(sideCode).entrySet()) {
            long total = 0;
            for (Order o : e.getValue()) total += o.leaves();
            out.add(new Level(e.getKey(), total, e.getValue().size()));
        }
        return out;
    }

    private TreeMap<BigDecimal, ArrayDeque<Order>> side(char sideCode) {
        return sideCode == Order.BUY ? bids : asks;
    }
}
