package triggerfish.exchange;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static triggerfish.exchange.TestSupport.entries;
import static triggerfish.exchange.TestSupport.get;
import static triggerfish.exchange.TestSupport.has;
import static triggerfish.exchange.TestSupport.next;
import static triggerfish.exchange.TestSupport.wireTags;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import quickfix.Message;

/** The exchange over real FIX sessions: two participants (TFISH1 and TRADER2) on 127.0.0.1. */
public class ExchangeFixTest {
    private TestSupport.Running ex;
    private FixClient a, b;

    @Before public void setUp() throws Exception {
        ex = new TestSupport.Running("fix", null, false, "MSFT", "AAPL");
        FixClient[] c = ex.clients("TFISH1", "TRADER2");
        a = c[0];   // the configured session
        b = c[1];   // logs on through the AcceptorTemplate section
    }

    @After public void tearDown() { ex.close(); }

    /** Subscribes c to MSFT and returns the initial snapshot. */
    private Message subscribe(FixClient c, String reqId) throws Exception {
        c.send(FixClient.marketDataRequest(reqId, '1', "MSFT"));
        Message w = next(c, "W");
        assertEquals(reqId, get(w, 262));
        return w;
    }

    private void assertExec(Message er, char execType, char status, long leaves, long cum) {
        assertEquals(er.toString(), String.valueOf(execType), get(er, 150));
        assertEquals(er.toString(), String.valueOf(status), get(er, 39));
        assertEquals(er.toString(), Long.toString(leaves), get(er, 151));
        assertEquals(er.toString(), Long.toString(cum), get(er, 14));
    }

    @Test public void limitOrderIsAcknowledgedAndAppearsInMarketData() throws Exception {
        Message empty = subscribe(b, "md1");
        assertEquals("0", get(empty, 268));
        assertEquals(List.of(), entries(empty));

        a.send(FixClient.newOrder("A1", '1', "100", "MSFT", "1170.25"));
        Message ack = next(a, "8");
        assertExec(ack, '0', '0', 100, 0);
        assertEquals("A1", get(ack, 11));
        assertEquals("ACC1", get(ack, 1));
        assertEquals("1170.25", get(ack, 44));
        assertFalse(get(ack, 37).isEmpty());

        Message w = next(b, "W");
        assertEquals("MSFT", get(w, 55));
        assertEquals("1", get(w, 268));                       // the empty offer side and no trade: omitted
        assertEquals(List.of("0 1170.25 100 1"), entries(w));
        assertTrue(ex.events.stream().anyMatch(e -> e.startsWith("ORDER TFISH1/A1 BUY 100 MSFT @ 1170.25")));
    }

    @Test public void snapshotHasThePapersFieldOrder() throws Exception {
        a.send(FixClient.newOrder("S1", '2', "100", "MSFT", "1170.50"));
        a.send(FixClient.newOrder("B1", '1', "300", "MSFT", "1169.75"));
        a.send(FixClient.newOrder("B2", '1', "200", "MSFT", "1169.75"));
        for (int i = 0; i < 3; i++) next(a, "8");   // resting before the other session trades
        b.send(FixClient.newOrder("X1", '1', "40", "MSFT", "1170.50"));   // trades 40 @ 1170.50
        next(b, "8");
        next(b, "8");
        Message w = subscribe(b, "md-order");
        assertEquals(List.of("0 1169.75 500 1", "1 1170.5 60 1", "2 1170.5 40"), entries(w));
        assertEquals(List.of(8, 9, 35, 34, 49, 52, 56, 55, 262, 268,
                269, 270, 271, 290, 269, 270, 271, 290, 269, 270, 271, 10), wireTags(w));
        assertEquals("EXCH", get(w.getHeader(), 49));
        assertEquals("TRADER2", get(w.getHeader(), 56));
    }

    @Test public void matchingFollowsPriceThenTimePriority() throws Exception {
        subscribe(a, "mdA");
        subscribe(b, "mdB");
        a.send(FixClient.newOrder("far", '2', "100", "MSFT", "1170.50"));
        a.send(FixClient.newOrder("first", '2', "100", "MSFT", "1170.25"));
        a.send(FixClient.newOrder("second", '2', "100", "MSFT", "1170.25"));
        for (int i = 0; i < 3; i++) assertEquals("0", get(next(a, "8"), 150));
        for (FixClient c : List.of(a, b)) {   // one snapshot per resting order
            assertEquals(List.of("1 1170.5 100 1"), entries(next(c, "W")));
            assertEquals(List.of("1 1170.25 100 1"), entries(next(c, "W")));
            assertEquals(List.of("1 1170.25 200 1"), entries(next(c, "W")));
        }

        b.send(FixClient.newOrder("take", '1', "250", "MSFT", "1170.50"));
        assertExec(next(b, "8"), '0', '0', 250, 0);
        Message f1 = next(b, "8"), f2 = next(b, "8"), f3 = next(b, "8");
        assertExec(f1, 'F', '1', 150, 100);
        assertEquals("1170.25", get(f1, 31));
        assertExec(f2, 'F', '1', 50, 200);
        assertEquals("1170.25", get(f2, 31));
        assertExec(f3, 'F', '2', 0, 250);
        assertEquals("1170.5", get(f3, 31));
        assertEquals("50", get(f3, 32));
        assertEquals("1170.3", get(f3, 6));                    // (200*1170.25 + 50*1170.5) / 250

        Message r1 = next(a, "8"), r2 = next(a, "8"), r3 = next(a, "8");
        assertEquals("first", get(r1, 11));
        assertExec(r1, 'F', '2', 0, 100);
        assertEquals("second", get(r2, 11));
        assertExec(r2, 'F', '2', 0, 100);
        assertEquals("far", get(r3, 11));
        assertExec(r3, 'F', '1', 50, 50);

        // one snapshot per trade print: 200 @ 1170.25, then 50 @ 1170.5, both with the book after the order
        for (FixClient c : List.of(a, b)) {
            assertEquals(List.of("1 1170.5 50 1", "2 1170.25 200"), entries(next(c, "W")));
            assertEquals(List.of("1 1170.5 50 1", "2 1170.5 50"), entries(next(c, "W")));
            assertNull(c.next("W", 300));
        }
    }

    @Test public void partialFillThenCancelThenCancelRejects() throws Exception {
        subscribe(b, "md");
        a.send(FixClient.newOrder("bid", '1', "100", "MSFT", "99.5"));
        next(a, "8");
        b.send(FixClient.newOrder("hit", '2', "30", "MSFT", "99"));
        assertExec(next(a, "8"), 'F', '1', 70, 30);
        assertEquals(List.of("0 99.5 100 1"), entries(next(b, "W")));
        assertEquals(List.of("0 99.5 70 1", "2 99.5 30"), entries(next(b, "W")));

        a.send(FixClient.cancel("bid-x", "bid", '1', "MSFT"));
        Message c = next(a, "8");
        assertExec(c, '4', '4', 0, 30);
        assertEquals("bid-x", get(c, 11));
        assertEquals("bid", get(c, 41));
        assertEquals(List.of("2 99.5 30"), entries(next(b, "W")));   // the bid is gone; the last trade stays

        a.send(FixClient.cancel("bid-y", "bid-x", '1', "MSFT"));
        Message late = next(a, "9");
        assertEquals("0", get(late, 102));                          // too late to cancel
        assertEquals("4", get(late, 39));
        assertEquals("1", get(late, 434));

        a.send(FixClient.cancel("nope-x", "nope", '1', "MSFT"));
        Message unknown = next(a, "9");
        assertEquals("1", get(unknown, 102));                       // unknown order
        assertEquals("NONE", get(unknown, 37));
        assertEquals("nope-x", get(unknown, 11));
        assertEquals("nope", get(unknown, 41));

        a.send(FixClient.cancel("bid-x", "bid", '1', "MSFT"));     // reused ClOrdID
        assertEquals("6", get(next(a, "9"), 102));
    }

    @Test public void invalidOrdersAreRejectedWithReasons() throws Exception {
        subscribe(b, "md");
        Object[][] cases = {
                {FixClient.newOrder("r1", '1', "10", "NOPE", "1"), 1, "unknown symbol NOPE"},
                {FixClient.newOrder("r2", '1', "0", "MSFT", "100"), 13, "bad quantity 0"},
                {FixClient.newOrder("r3", '1', "1.5", "MSFT", "100"), 13, "bad quantity 1.5"},
                {FixClient.newOrder("r4", '1', "-5", "MSFT", "100"), 13, "bad quantity -5"},
                {FixClient.newOrder("r5", '2', "10", "MSFT", "-100.25"), 99, "bad price -100.25"},
                {FixClient.newOrder("r6", '2', "10", "MSFT", "0"), 99, "bad price 0"},
        };
        for (Object[] c : cases) {
            a.send((Message) c[0]);
            Message er = next(a, "8");
            assertExec(er, '8', '8', 0, 0);
            assertEquals(er.toString(), Integer.toString((Integer) c[1]), get(er, 103));
            assertEquals(c[2], get(er, 58));
        }
        Message noPrice = FixClient.newOrder("r7", '1', "10", "MSFT", "1");
        noPrice.removeField(44);
        a.send(noPrice);
        assertEquals("bad price null", get(next(a, "8"), 58));

        a.send(FixClient.newOrder("ok", '1', "10", "MSFT", "100"));
        assertEquals("0", get(next(a, "8"), 150));
        a.send(FixClient.newOrder("ok", '1', "10", "MSFT", "100"));
        Message dup = next(a, "8");
        assertEquals("8", get(dup, 150));
        assertEquals("6", get(dup, 103));
        assertEquals("duplicate ClOrdID ok", get(dup, 58));
        // rejected orders never reached the book: the only snapshot is for "ok"
        assertEquals(List.of("0 100 10 1"), entries(next(b, "W")));
        assertNull(b.next("W", 300));
        assertTrue(ex.events.stream().anyMatch(e -> e.equals("REJECT TFISH1/r1: unknown symbol NOPE")));
    }

    @Test public void marketOrderTakesLiquidityAndCancelsTheRest() throws Exception {
        a.send(FixClient.newOrder("s", '2', "50", "AAPL", "190.5"));
        next(a, "8");
        b.send(FixClient.newOrder("m", '1', "80", "AAPL", null));
        Message ack = next(b, "8");
        assertExec(ack, '0', '0', 80, 0);
        assertEquals("1", get(ack, 40));
        assertFalse(has(ack, 44));
        Message fill = next(b, "8");
        assertExec(fill, 'F', '1', 30, 50);
        assertEquals("190.5", get(fill, 31));
        Message rest = next(b, "8");
        assertExec(rest, '4', '4', 0, 50);
        assertTrue(get(rest, 58).contains("no more liquidity"));
    }

    @Test public void marketDataRequestForUnknownSymbolIsRejected() throws Exception {
        a.send(FixClient.marketDataRequest("bad", '1', "MSFT", "ZZZZ"));
        Message y = next(a, "Y");
        assertEquals("bad", get(y, 262));
        assertEquals("0", get(y, 281));
        assertEquals("unknown symbol ZZZZ", get(y, 58));
        assertNull(a.next("W", 300));   // nothing subscribed, not even MSFT
        subscribe(a, "good");
        a.send(FixClient.marketDataRequest("good", '1', "AAPL"));
        assertEquals("1", get(next(a, "Y"), 281));   // duplicate MDReqID
    }

    @Test public void unsubscribeStopsSnapshotsAndSnapshotRequestSendsOne() throws Exception {
        subscribe(a, "md");
        a.send(FixClient.marketDataRequest("md", '2', "MSFT"));
        a.send(FixClient.newOrder("a1", '1', "10", "MSFT", "10"));   // same session: after the unsubscribe
        next(a, "8");
        assertNull(a.next("W", 500));
        a.send(FixClient.marketDataRequest("once", '0', "MSFT", "AAPL"));
        Message w1 = next(a, "W"), w2 = next(a, "W");
        assertEquals("MSFT", get(w1, 55));
        assertEquals(List.of("0 10 10 1"), entries(w1));
        assertEquals("AAPL", get(w2, 55));
        b.send(FixClient.newOrder("b2", '1', "10", "MSFT", "11"));
        next(b, "8");
        assertNull(a.next("W", 500));
    }

    @Test public void everyMessageIsLoggedToTheLogDir() throws Exception {
        a.send(FixClient.newOrder("L1", '1', "10", "MSFT", "10"));
        next(a, "8");
        Path log = ex.dir.resolve("log/FIX.4.4-EXCH-TFISH1.messages.log");
        String text = "";
        for (int i = 0; i < 50 && !text.contains("\u000111=L1\u0001"); i++) {
            Thread.sleep(100);
            if (Files.exists(log)) text = Files.readString(log);
        }
        assertTrue(text, text.contains("35=D") && text.contains("\u000111=L1\u0001"));
        assertTrue(text.contains("35=8"));
        try (Stream<Path> s = Files.list(ex.dir.resolve("log"))) {
            assertTrue(s.anyMatch(p -> p.getFileName().toString().contains("TRADER2")));
        }
        assertTrue(ex.events.stream().anyMatch(e -> e.startsWith("LOGON TFISH1")));
        assertTrue(ex.events.stream().anyMatch(e -> e.startsWith("LOGON TRADER2")));
    }
}
