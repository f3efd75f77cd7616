package triggerfish.exchange;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static triggerfish.exchange.TestSupport.get;
import static triggerfish.exchange.TestSupport.next;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.Test;

/** The command line as a separate process: ready line, one line per session event, clean stop on SIGTERM. */
public class MainProcessTest {
    /**
     * The process's output, read from a file: a pipe read while the process exits can lose its last
     * lines (the JDK closes the stream under a blocked reader), and the last lines are what this test checks.
     */
    private static final class Output {
        private final Path file;
        private int next;   // index of the first line not yet taken

        Output(Path file) { this.file = file; }

        String await(String prefix) throws Exception {
            long end = System.currentTimeMillis() + 15000;
            List<String> lines = List.of();
            while (System.currentTimeMillis() < end) {
                lines = Files.exists(file) ? Files.readAllLines(file) : List.of();
                for (int i = next; i < lines.size(); i++) {
                    if (lines.get(i).startsWith(prefix) && (i + 1 < lines.size() || Files.readString(file).endsWith("\n"))) {
                        next = i + 1;
                        return lines.get(i);
                    }
                }
                Thread.sleep(50);
            }
            throw new AssertionError("no line starting with '" + prefix + "' in:\n" + String.join("\n", lines));
        }
    }

    @Test public void readyLineEventsAndCleanShutdownOnSigterm() throws Exception {
        Path dir = TestSupport.tempDir("main");
        Path path = dir.resolve("p.path");
        Files.write(path, List.of("0 MSFT 99 101"));
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "triggerfish.exchange.Main",
                "--settings", TestSupport.settingsFile().toString(), "--port", "0", "--bind", "127.0.0.1",
                "--log-dir", dir.toString(), "--path", path.toString(), "--symbols", "AAPL")
                .redirectErrorStream(true).redirectOutput(dir.resolve("stdout.txt").toFile()).start();
        Output lines = new Output(dir.resolve("stdout.txt"));
        try {
            String ready = lines.await("EXCHANGE READY port=");
            int port = Integer.parseInt(ready.substring("EXCHANGE READY port=".length()));
            FixClient c = new FixClient("127.0.0.1", port, "TFISH1", "EXCH", null);
            try {
                assertTrue(c.awaitLogon(TestSupport.TIMEOUT_MS));
                assertTrue(lines.await("LOGON TFISH1").contains("FIX.4.4:EXCH->TFISH1"));
                c.send(FixClient.newOrder("m1", '1', "10", "MSFT", "101"));
                assertTrue(lines.await("ORDER").startsWith("ORDER TFISH1/m1 BUY 10 MSFT @ 101 -> O"));
                assertEquals("FILL MSFT 10 @ 101 buyer=TFISH1/m1 seller=MM/MM2", lines.await("FILL"));
                c.send(FixClient.newOrder("m2", '1', "10", "AAPL", "-1"));
                assertEquals("REJECT TFISH1/m2: bad price -1", lines.await("REJECT"));
                for (String execType : new String[] {"0", "F", "8"}) assertEquals(execType, get(next(c, "8"), 150));

                p.destroy();   // SIGTERM
                assertTrue("exited", p.waitFor(20, TimeUnit.SECONDS));
                assertEquals(143, p.exitValue());                // 128 + SIGTERM, after the shutdown hook ran
                lines.await("EXCHANGE STOPPED");
            } finally {
                c.close();
            }
            String log = Files.readString(dir.resolve("log/FIX.4.4-EXCH-TFISH1.messages.log"));
            assertTrue(log.contains("\u000135=D\u0001") && log.contains("\u000135=5\u0001"));
        } finally {
            p.destroyForcibly();
        }
    }

    @Test public void usageErrors() {
        for (String[] bad : new String[][] {{}, {"--settings"}, {"--settings", "x", "--bogus", "1"}}) {
            try {
                Main.parse(bad);
                throw new AssertionError("accepted " + String.join(" ", bad));
            } catch (Main.UsageException expected) {
                assertNotNull(expected.getMessage());
            }
        }
        ExchangeServer.Options o = Main.parse(new String[] {"--settings", "s.cfg", "--symbols", "A, B,", "--port", "0", "--loop"});
        assertEquals(List.of("A", "B"), o.symbols);
        assertEquals(Integer.valueOf(0), o.port);
        assertTrue(o.loop);
    }
}
