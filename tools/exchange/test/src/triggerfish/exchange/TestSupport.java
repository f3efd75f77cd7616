package triggerfish.exchange;

import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import quickfix.FieldNotFound;
import quickfix.Group;
import quickfix.Message;

/** Shared helpers: the sample settings file, an in-process exchange on a free loopback port, FIX clients. */
final class TestSupport {
    static final long TIMEOUT_MS = 5000;

    static {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }

    private TestSupport() {}

    /** tools/exchange/exchange.cfg: from -Dexchange.cfg (set by the Mill module), else found above the cwd. */
    static Path settingsFile() {
        String prop = System.getProperty("exchange.cfg");
        if (prop != null) return Path.of(prop);
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path p = d.resolve("tools/exchange/exchange.cfg");
            if (Files.exists(p)) return p;
        }
        throw new IllegalStateException("exchange.cfg not found: set -Dexchange.cfg");
    }

    /** A fresh temporary folder, deleted with everything in it when the test JVM exits. */
    static Path tempDir(String name) throws IOException {
        Path dir = Files.createTempDirectory("exchange-test-" + name);
        deleteOnExit(dir);
        return dir;
    }

    static void deleteOnExit(Path dir) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try (java.util.stream.Stream<Path> s = Files.walk(dir)) {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException | java.io.UncheckedIOException e) {
                System.err.println("exchange-test: could not delete " + dir + ": " + e);
            }
        }));
    }

    /** An exchange on 127.0.0.1, any free port, logging into a fresh temporary folder. */
    static final class Running implements AutoCloseable {
        final ExchangeServer server;
        final List<String> events = Collections.synchronizedList(new ArrayList<>());
        final Path dir;
        private final List<FixClient> clients = new ArrayList<>();

        Running(String name, Path pricePath, boolean waitForSubscriber, String... symbols) throws Exception {
            this(name, pricePath, waitForSubscriber, false, symbols);
        }

        Running(String name, Path pricePath, boolean waitForSubscriber, boolean stepSync, String... symbols) throws Exception {
            dir = tempDir(name);
            ExchangeServer.Options o = new ExchangeServer.Options();
            o.settings = settingsFile();
            o.port = 0;
            o.bind = "127.0.0.1";
            o.logDir = dir;
            o.pricePath = pricePath;
            o.waitForSubscriber = waitForSubscriber;
            o.stepSync = stepSync;
            o.symbols.addAll(List.of(symbols));
            server = ExchangeServer.start(o, events::add);
            assertTrue("bound port " + server.port(), server.port() > 0);
        }

        FixClient client(String compId) throws Exception {
            return clients(compId)[0];
        }

        /** Connects several participants at once (each initiator takes about a second to connect). */
        FixClient[] clients(String... compIds) throws Exception {
            FixClient[] out = new FixClient[compIds.length];
            for (int i = 0; i < compIds.length; i++) {
                out[i] = new FixClient("127.0.0.1", server.port(), compIds[i], "EXCH", dir.resolve("client-" + compIds[i]));
                clients.add(out[i]);
            }
            for (int i = 0; i < compIds.length; i++) assertTrue(compIds[i] + " logged on", out[i].awaitLogon(TIMEOUT_MS));
            return out;
        }

        @Override public void close() {
            server.close();   // logs every client out first, so closing the clients does not wait
            for (FixClient c : clients) c.close();
        }
    }

    static Message next(FixClient c, String type) throws InterruptedException {
        Message m = c.next(type, TIMEOUT_MS);
        assertNotNull("expected a 35=" + type, m);
        return m;
    }

    static String get(quickfix.FieldMap m, int tag) {
        try {
            return m.getString(tag);
        } catch (FieldNotFound e) {
            throw new AssertionError("missing tag " + tag + " in " + m);
        }
    }

    static boolean has(quickfix.FieldMap m, int tag) { return m.isSetField(tag); }

    /** The tag numbers of a message as it goes on the wire, in order. */
    static List<Integer> wireTags(Message m) {
        List<Integer> tags = new ArrayList<>();
        for (String f : m.toString().split("\u0001")) tags.add(Integer.parseInt(f.substring(0, f.indexOf('='))));
        return tags;
    }

    /** A 35=W entry as "type px qty" (plus " pos" when 290 is present), e.g. "0 1170.25 100 1". */
    static List<String> entries(Message w) {
        List<String> out = new ArrayList<>();
        for (Group g : w.getGroups(268)) {
            String e = get(g, 269) + " " + get(g, 270) + " " + get(g, 271);
            if (g.isSetField(290)) e += " " + get(g, 290);
            out.add(e);
        }
        return out;
    }
}
