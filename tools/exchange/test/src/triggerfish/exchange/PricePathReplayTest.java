package triggerfish.exchange;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static triggerfish.exchange.TestSupport.entries;
import static triggerfish.exchange.TestSupport.get;
import static triggerfish.exchange.TestSupport.next;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;
import quickfix.Group;
import quickfix.Message;

/** The built-in market maker replaying a price path, seen through FIX sessions. */
public class PricePathReplayTest {
    private static Path pathFile(String... lines) throws Exception {
        Path p = TestSupport.tempDir("path").resolve("test.path");
        Files.write(p, List.of(lines));
        return p;
    }

    private static String tradeOf(Message w) {
        for (Group g : w.getGroups(268)) if (get(g, 269).equals("2")) return get(g, 270) + " x" + get(g, 271);
        return null;
    }

    @Test public void replayTradesAtTheScriptedPricesInOrder() throws Exception {
        Path path = pathFile(
                "# quotes, then three trades",
                "0   MSFT 1169.75 1170.25",
                "50  MSFT 1169.75 1170.25 trade 1170.00 100",
                "50  MSFT 1170.00 1170.50 trade 1170.25 200 size 300",
                "50  MSFT 1168.75 1169.25 trade 1169.00 400",
                "50  MSFT 1169.25 1169.75");
        try (TestSupport.Running ex = new TestSupport.Running("replay", path, true)) {
            FixClient c = ex.client("TFISH1");
            c.send(FixClient.marketDataRequest("md", '1', "MSFT"));
            assertEquals(List.of(), entries(next(c, "W")));               // before the path starts
            assertEquals(List.of("0 1169.75 100 1", "1 1170.25 100 1"), entries(next(c, "W")));
            assertEquals(List.of("0 1169.75 100 1", "1 1170.25 100 1", "2 1170 100"), entries(next(c, "W")));
            assertEquals(List.of("0 1170 300 1", "1 1170.5 300 1", "2 1170.25 200"), entries(next(c, "W")));
            assertEquals(List.of("0 1168.75 100 1", "1 1169.25 100 1", "2 1169 400"), entries(next(c, "W")));
            assertEquals(List.of("0 1169.25 100 1", "1 1169.75 100 1", "2 1169 400"), entries(next(c, "W")));
            assertNull(c.next("W", 300));
            assertTrue(ex.events.contains("PATH DONE pass 1 (5 steps)"));
        }
    }

    @Test public void stepSyncWaitsForTheSubscribersHeartbeat() throws Exception {
        Path path = pathFile("0 MSFT 99 101", "0 MSFT 99 101 trade 100 10", "0 MSFT 98 102");
        try (TestSupport.Running ex = new TestSupport.Running("sync", path, true, true)) {
            FixClient c = ex.client("TFISH1");
            java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
            c.holdTestRequests(gate);
            c.send(FixClient.marketDataRequest("md", '1', "MSFT"));
            next(c, "W");                                                   // the subscription's snapshot
            assertEquals(List.of("0 99 100 1", "1 101 100 1"), entries(next(c, "W")));
            assertEquals("STEP-1-1", get(next(c, "1"), 112));               // pass 1, path line 1
            assertNull("the next step waits for the Heartbeat", c.next("W", 1000));
            gate.countDown();
            assertEquals(List.of("0 99 100 1", "1 101 100 1", "2 100 10"), entries(next(c, "W")));
            assertEquals("STEP-1-2", get(next(c, "1"), 112));
            assertEquals(List.of("0 98 100 1", "1 102 100 1", "2 100 10"), entries(next(c, "W")));
            assertEquals("STEP-1-3", get(next(c, "1"), 112));
            for (int i = 0; i < 50 && !ex.events.contains("PATH DONE pass 1 (3 steps)"); i++) Thread.sleep(50);
            assertTrue(ex.events.contains("PATH DONE pass 1 (3 steps)"));
        }
    }

    @Test public void clientOrderCrossingTheMarketMakerIsFilled() throws Exception {
        Path path = pathFile("0 MSFT 99.50 100.50 size 100");
        try (TestSupport.Running ex = new TestSupport.Running("cross", path, false)) {
            FixClient[] cs = ex.clients("TFISH1", "WATCH");
            FixClient c = cs[0], watcher = cs[1];
            for (int i = 0; i < 50 && !ex.events.contains("PATH DONE pass 1 (1 steps)"); i++) Thread.sleep(50);
            watcher.send(FixClient.marketDataRequest("md", '1', "MSFT"));
            assertEquals(List.of("0 99.5 100 1", "1 100.5 100 1"), entries(next(watcher, "W")));

            c.send(FixClient.newOrder("buy1", '1', "30", "MSFT", "101"));
            assertEquals("0", get(next(c, "8"), 150));
            Message fill = next(c, "8");
            assertEquals("F", get(fill, 150));
            assertEquals("2", get(fill, 39));
            assertEquals("100.5", get(fill, 31));                         // at the resting offer, not at 101
            assertEquals("30", get(fill, 32));
            assertEquals(List.of("0 99.5 100 1", "1 100.5 70 1", "2 100.5 30"), entries(next(watcher, "W")));

            c.send(FixClient.newOrder("sell1", '2', "150", "MSFT", "99.5"));   // more than the bid holds
            next(c, "8");
            Message part = next(c, "8");
            assertEquals("1", get(part, 39));
            assertEquals("100", get(part, 14));
            assertEquals(List.of("1 99.5 50 1", "2 99.5 100"), entries(next(watcher, "W")));  // remainder rests
        }
    }

    @Test public void pathTradingThroughARestingClientOrderFillsIt() throws Exception {
        Path path = pathFile(
                "0   MSFT 99.75 100.25",
                "200 MSFT 99.75 100.25 trade 100.20 10");
        try (TestSupport.Running ex = new TestSupport.Running("through", path, true)) {
            FixClient c = ex.client("TFISH1");
            c.send(FixClient.newOrder("ask", '2', "4", "MSFT", "100.10"));
            assertEquals("0", get(next(c, "8"), 150));
            c.send(FixClient.marketDataRequest("md", '1', "MSFT"));       // starts the path
            List<String> trades = new ArrayList<>();
            Message fill = next(c, "8");
            assertEquals("F", get(fill, 150));
            assertEquals("100.1", get(fill, 31));
            assertEquals("2", get(fill, 39));
            for (int i = 0; i < 4; i++) {
                Message w = c.next("W", 2000);
                if (w != null && tradeOf(w) != null) trades.add(tradeOf(w));
            }
            // the market buyer takes the better-priced client offer first, then trades the rest at the path's price
            assertEquals(List.of("100.1 x4", "100.2 x6"), trades);
        }
    }

    @Test public void secondSessionTradesInTheSameBook() throws Exception {
        Path path = pathFile("0 MSFT 99 101");
        try (TestSupport.Running ex = new TestSupport.Running("two", path, false)) {
            FixClient[] cs = ex.clients("TFISH1", "TRADER2");
            FixClient soc = cs[0], other = cs[1];
            for (int i = 0; i < 50 && !ex.events.contains("PATH DONE pass 1 (1 steps)"); i++) Thread.sleep(50);
            soc.send(FixClient.marketDataRequest("md", '1', "MSFT"));
            next(soc, "W");
            other.send(FixClient.newOrder("o1", '2', "5", "MSFT", "100"));   // improves the offer
            next(other, "8");
            assertEquals(List.of("0 99 100 1", "1 100 5 1"), entries(next(soc, "W")));
            other.send(FixClient.newOrder("o2", '1', "5", "MSFT", "100"));   // trades with itself
            assertEquals(List.of("0 99 100 1", "1 101 100 1", "2 100 5"), entries(next(soc, "W")));
        }
    }
}
