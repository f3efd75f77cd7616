package triggerfish.exchange;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.math.BigDecimal;
import java.util.List;
import org.junit.Test;

public class OrderBookTest {
    private long seq = 1;

    private Order limit(char side, long qty, String px) {
        return new Order(seq++, null, "T", null, "c" + seq, "MSFT", side, Order.LIMIT, Order.DAY, new BigDecimal(px), qty);
    }

    private static void add(OrderBook b, Order o) {
        b.match(o);
        if (o.leaves() > 0) b.rest(o);
    }

    @Test public void bestPriceFirstThenOldestFirst() {
        OrderBook b = new OrderBook("MSFT");
        Order far = limit(Order.SELL, 10, "101");
        Order first = limit(Order.SELL, 10, "100");
        Order second = limit(Order.SELL, 10, "100");
        add(b, far);
        add(b, first);
        add(b, second);
        Order buy = limit(Order.BUY, 25, "101");
        List<OrderBook.Fill> fills = b.match(buy);
        assertEquals(3, fills.size());
        assertEquals(first, fills.get(0).resting());
        assertEquals(second, fills.get(1).resting());
        assertEquals(far, fills.get(2).resting());
        assertEquals(0, new BigDecimal("100").compareTo(fills.get(0).price()));
        assertEquals(0, new BigDecimal("101").compareTo(fills.get(2).price()));
        assertEquals(5, fills.get(2).qty());
        assertEquals(Order.FILLED, buy.status);
        assertEquals(Order.PARTIAL, far.status);
        assertEquals(new BigDecimal("100.2"), buy.avgPx());   // (20*100 + 5*101) / 25
        OrderBook.Level top = b.top(Order.SELL);
        assertEquals(0, new BigDecimal("101").compareTo(top.price()));
        assertEquals(5, top.qty());
        assertNull(b.top(Order.BUY));
    }

    @Test public void limitNeverTradesThroughItsPrice() {
        OrderBook b = new OrderBook("MSFT");
        add(b, limit(Order.SELL, 10, "100.25"));
        Order bid = limit(Order.BUY, 10, "100.00");
        assertTrue(b.match(bid).isEmpty());
        b.rest(bid);
        assertEquals(0, new BigDecimal("100").compareTo(b.top(Order.BUY).price()));
        assertEquals(0, new BigDecimal("100.25").compareTo(b.top(Order.SELL).price()));
    }

    @Test public void decimalPricesOfEqualValueShareALevel() {
        OrderBook b = new OrderBook("MSFT");
        add(b, limit(Order.BUY, 10, "1170.25"));
        add(b, limit(Order.BUY, 20, "1170.250"));
        add(b, limit(Order.BUY, 5, "1170.2"));
        OrderBook.Level top = b.top(Order.BUY);
        assertEquals(30, top.qty());
        assertEquals(2, top.orders());
        assertEquals(2, b.depth(Order.BUY).size());
    }

    @Test public void removeTakesOrderOutAndDropsEmptyLevel() {
        OrderBook b = new OrderBook("MSFT");
        Order o = limit(Order.BUY, 10, "99");
        add(b, o);
        assertTrue(b.remove(o));
        assertFalse(b.remove(o));
        assertNull(b.top(Order.BUY));
    }
}
