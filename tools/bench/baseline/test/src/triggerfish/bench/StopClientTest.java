package triggerfish.bench;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.Test;
import quickfix.Group;
import quickfix.Message;
import quickfix.SessionID;
import triggerfish.exchange.ExchangeServer;

/** The baseline client: stop parsing and crossing, no fire on what must not fire, and a run against the exchange. */
public class StopClientTest {
    static {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }

    static final String DEFAULT_STOPS = "buy:MSFT:1170.50:10:1171.50,sell:MSFT:1169.50:10:1168.50";

    private static Path benchDir() {
        String p = System.getProperty("bench.dir");
        if (p != null) return Path.of(p);
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent())
            if (Files.isDirectory(d.resolve("tools/bench/paths"))) return d.resolve("tools/bench");
        throw new IllegalStateException("tools/bench not found: set -Dbench.dir");
    }

    private static Path exchangeCfg() {
        String p = System.getProperty("exchange.cfg");
        return p != null ? Path.of(p) : benchDir().resolveSibling("exchange/exchange.cfg");
    }

    @Test public void stopsParseAndCross() {
        List<StopClient.Stop> s = StopClient.Stop.parseList(DEFAULT_STOPS);
        assertEquals(2, s.size());
        StopClient.Stop buy = s.get(0), sell = s.get(1);
        assertEquals('1', buy.side());
        assertEquals("MSFT", buy.symbol());
        assertEquals("10", buy.qty());
        assertEquals("1171.50", buy.limit());
        assertTrue(buy.crossedBy(new BigDecimal("1170.5")));     // equal crosses, whatever the scale
        assertTrue(buy.crossedBy(new BigDecimal("1171")));
        assertFalse(buy.crossedBy(new BigDecimal("1170.25")));
        assertTrue(sell.crossedBy(new BigDecimal("1169.50")));
        assertTrue(sell.crossedBy(new BigDecimal("1169")));
        assertFalse(sell.crossedBy(new BigDecimal("1169.75")));
        for (String bad : new String[] {"buy:MSFT:1170:10", "hold:MSFT:1:1:1", "buy:MSFT:-1:10:1", "buy:MSFT:1:0:1", ""}) {
            try {
                StopClient.Stop.parseList(bad);
                fail("accepted '" + bad + "'");
            } catch (IllegalArgumentException expected) {
                // named in the message
            }
        }
    }

    private static Message w(String symbol, String... entries) {
        Message m = new quickfix.fix44.MarketDataSnapshotFullRefresh();
        m.getHeader().setString(35, "W");
        m.setString(55, symbol);
        m.setString(262, "MD1");
        for (String e : entries) {
            String[] t = e.split(" ");
            Group g = new quickfix.fix44.MarketDataSnapshotFullRefresh.NoMDEntries();
            g.setChar(269, t[0].charAt(0));
            g.setString(270, t[1]);
            g.setString(271, "100");
            m.addGroup(g);
        }
        return m;
    }

    /** Nothing here may fire: a fire would need a session and fail the client. */
    @Test public void onlyACrossingTradeOfTheArmedSymbolFires() throws Exception {
        StopClient.Config cfg = new StopClient.Config();
        cfg.stops = StopClient.Stop.parseList(DEFAULT_STOPS);
        cfg.senderCompId = "UNIT1";
        StopClient c = new StopClient(cfg);   // never started
        SessionID id = new SessionID("FIX.4.4", "UNIT1", "EXCH");
        c.fromApp(w("MSFT", "0 1171", "1 1172"), id);                         // a quote above the stop is no trade
        c.fromApp(w("MSFT", "0 1169", "1 1170", "2 1170.25"), id);            // a trade below the buy stop
        c.fromApp(w("AAPL", "2 1200"), id);                                   // another symbol
        c.fromApp(w("MSFT"), id);                                             // an empty book
        assertEquals(0, c.fires());
        assertNull(c.failure());
        assertEquals(4, c.marketDataMessages());
    }

    @Test public void alternatingStopsFireOnTheBenchPathAndTheOrdersFill() throws Exception {
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        Path dir = Files.createTempDirectory("stop-client-test");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {   // the folder goes when the test JVM exits
            try (java.util.stream.Stream<Path> s = Files.walk(dir)) {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (java.io.IOException | java.io.UncheckedIOException e) {
                System.err.println("stop-client-test: could not delete " + dir + ": " + e);
            }
        }));
        ExchangeServer.Options o = new ExchangeServer.Options();
        o.settings = exchangeCfg();
        o.port = 0;
        o.bind = "127.0.0.1";
        o.logDir = dir.resolve("exchange");
        o.pricePath = benchDir().resolve("paths/swing.path");
        o.loop = true;
        o.waitForSubscriber = true;
        int fires = 20;
        try (ExchangeServer ex = ExchangeServer.start(o, events::add)) {
            StopClient.Config cfg = new StopClient.Config();
            cfg.port = ex.port();
            cfg.senderCompId = "BENCH1";
            cfg.stops = StopClient.Stop.parseList(DEFAULT_STOPS);
            cfg.maxFires = fires;
            try (StopClient c = new StopClient(cfg)) {
                c.start();
                assertTrue("logon", c.awaitLogon(10_000));
                c.subscribe();
                assertTrue("done: " + c.failure() + ", fires " + c.fires(), c.awaitDone(20_000));
                assertEquals(fires, c.fires());
                for (int i = 0; i < 50 && c.fills() < fires; i++) Thread.sleep(20);
                assertEquals(fires, c.fills());
                assertEquals(0, c.rejects());
                Path csv = dir.resolve("fires.csv");
                c.writeFires(csv);
                List<String> lines = Files.readAllLines(csv);
                assertEquals("clordid,stop,side,stop_px,trade_px,callback_to_sent_ns", lines.get(0));
                assertEquals(fires + 1, lines.size());
                for (int i = 1; i <= fires; i++) {
                    String[] f = lines.get(i).split(",");
                    boolean buy = i % 2 == 1;
                    assertEquals("BL" + i, f[0]);
                    assertEquals(buy ? "buy" : "sell", f[2]);
                    // the path's trades, except while a cold JVM lags behind the 10 ms steps: then a fill of
                    // the previous order (a trade at the market maker's quote) may be what crosses
                    BigDecimal px = new BigDecimal(f[4]);
                    assertTrue(lines.get(i), buy ? px.compareTo(new BigDecimal("1170.5")) >= 0 : px.compareTo(new BigDecimal("1169.5")) <= 0);
                    assertTrue(lines.get(i), Long.parseLong(f[5]) > 0);
                }
            }
        }
        assertTrue(events.toString(), events.stream().anyMatch(e -> e.startsWith("ORDER BENCH1/BL1 BUY 10 MSFT @ 1171.5")));
        assertTrue(events.toString(), events.stream().anyMatch(e -> e.startsWith("ORDER BENCH1/BL2 SELL 10 MSFT @ 1168.5")));
        assertTrue(events.toString(), events.stream().anyMatch(e -> e.startsWith("FILL MSFT 10 @ ")
                && e.contains(" buyer=BENCH1/BL1 seller=MM/")));
    }
}
