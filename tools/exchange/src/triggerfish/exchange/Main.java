package triggerfish.exchange;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;

/** Command line of the exchange simulator; see usage(). */
public final class Main {
    private Main() {}

    static String usage() {
        return String.join("\n",
                "usage: exchange --settings FILE [options]",
                "  --settings FILE        QuickFIX/J acceptor settings (tools/exchange/exchange.cfg)",
                "  --path FILE            price path replayed by the built-in market maker",
                "                         (lines: <delay_ms> <symbol> <bid|-> <ask|-> [trade <price> <qty>] [size <qty>])",
                "  --symbols A,B          tradable symbols (also every symbol of the path; default " + ExchangeServer.DEFAULT_SYMBOL + ")",
                "  --log-dir DIR          FIX message logs in DIR/log, sequence stores in DIR/store",
                "  --port N               listen on port N (0: any free port); overrides SocketAcceptPort",
                "  --bind ADDR            listen on ADDR; overrides SocketAcceptAddress",
                "  --quote-size N         market maker quote size (default 100)",
                "  --loop                 replay the path again and again",
                "  --wait-subscriber      start the path when the first market-data subscription arrives",
                "  --step-sync            end each path step with a TestRequest to every subscriber and start the",
                "                         next step's delay when all have answered (a slow subscriber sets the pace)",
                "  --keep-seqnums         keep sequence numbers from the last run (default: start at 1)",
                "  --control FIFO         read commands from this named pipe (made by the caller), one a line:",
                "                         burst N segment|coalesced [symbol=S] [bid=PX] [ask=PX] [cross=I:PX,...]",
                "                         [testreq=K,...] [inflight=BYTES] [liquidity=SIZE] [drain-s=S] (README)");
    }

    static ExchangeServer.Options parse(String[] args) {
        ExchangeServer.Options o = new ExchangeServer.Options();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--loop" -> o.loop = true;
                case "--wait-subscriber" -> o.waitForSubscriber = true;
                case "--step-sync" -> o.stepSync = true;
                case "--keep-seqnums" -> o.keepSeqNums = true;
                case "-h", "--help" -> throw new UsageException(null);
                default -> {
                    if (i + 1 >= args.length) throw new UsageException(a + " needs a value");
                    String v = args[++i];
                    switch (a) {
                        case "--settings" -> o.settings = Path.of(v);
                        case "--path" -> o.pricePath = Path.of(v);
                        case "--symbols" -> Arrays.stream(v.split(",")).map(String::trim)
                                .filter(s -> !s.isEmpty()).forEach(o.symbols::add);
                        case "--log-dir" -> o.logDir = Path.of(v);
                        case "--port" -> o.port = Integer.parseInt(v);
                        case "--bind" -> o.bind = v;
                        case "--control" -> o.control = Path.of(v);
                        case "--quote-size" -> o.quoteSize = Long.parseLong(v);
                        default -> throw new UsageException("unknown option " + a);
                    }
                }
            }
        }
        if (o.settings == null) throw new UsageException("--settings is required");
        return o;
    }

    static final class UsageException extends RuntimeException {
        UsageException(String message) { super(message); }
    }

    public static void main(String[] args) throws Exception {
        // QuickFIX/J logs through SLF4J (slf4j-simple, to stderr): keep it to warnings unless asked for more.
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null)
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        ExchangeServer.Options o;
        try {
            o = parse(args);
        } catch (UsageException | NumberFormatException e) {
            if (e.getMessage() != null) System.err.println("exchange: " + e.getMessage());
            System.err.println(usage());
            System.exit(e.getMessage() == null ? 0 : 2);
            return;
        }
        ExchangeServer server;
        try {
            server = ExchangeServer.start(o, Main::print);
        } catch (Exception e) {
            System.err.println("exchange: cannot start: " + e.getMessage());
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "exchange-shutdown"));
        print("EXCHANGE READY port=" + server.port());
        stopped.await();
    }

    static synchronized void print(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
