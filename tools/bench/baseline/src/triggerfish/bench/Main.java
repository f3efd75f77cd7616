package triggerfish.bench;

import java.nio.file.Path;

/** Command line of the Linux software baseline client; see usage(). Exit status: 0 done, 1 failed, 2 usage. */
public final class Main {
    private Main() {}

    static String usage() {
        return String.join("\n",
                "usage: stop-client --stops LIST [options]",
                "  --stops LIST         stop orders armed one at a time, round robin: side:symbol:stop:qty:limit,...",
                "                       e.g. buy:MSFT:1170.50:10:1171.50,sell:MSFT:1169.50:10:1168.50",
                "  --fires N            stop after N orders (default 1000)",
                "  --host H --port P    the exchange (default 127.0.0.1 9876)",
                "  --sender ID          SenderCompID (default BASE1); TargetCompID is --target (default EXCH)",
                "  --prefix P           ClOrdIDs are P1, P2, ... (default BL)",
                "  --timeout-s S        give up after S seconds without reaching N fires (default 600)",
                "  --fires-csv FILE     after the run: one line per fire (ClOrdID, stop, trade price, ns in the callback)",
                "  --log-dir DIR        QuickFIX FileLog of every message in DIR (slows the hot path: debugging only)");
    }

    static StopClient.Config parse(String[] args, String[] csvOut, long[] timeoutS) {
        StopClient.Config c = new StopClient.Config();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) throw new IllegalArgumentException((String) null);
            if (i + 1 >= args.length) throw new IllegalArgumentException(a + " needs a value");
            String v = args[++i];
            switch (a) {
                case "--stops" -> c.stops = StopClient.Stop.parseList(v);
                case "--fires" -> c.maxFires = Integer.parseInt(v);
                case "--host" -> c.host = v;
                case "--port" -> c.port = Integer.parseInt(v);
                case "--sender" -> c.senderCompId = v;
                case "--target" -> c.targetCompId = v;
                case "--prefix" -> c.clOrdIdPrefix = v;
                case "--timeout-s" -> timeoutS[0] = Long.parseLong(v);
                case "--fires-csv" -> csvOut[0] = v;
                case "--log-dir" -> c.logDir = Path.of(v);
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        if (c.stops.isEmpty()) throw new IllegalArgumentException("--stops is required");
        if (c.maxFires <= 0) throw new IllegalArgumentException("--fires must be positive");
        return c;
    }

    public static void main(String[] args) throws Exception {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null)
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        String[] csv = {null};
        long[] timeoutS = {600};
        StopClient.Config cfg;
        try {
            cfg = parse(args, csv, timeoutS);
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null) System.err.println("stop-client: " + e.getMessage());
            System.err.println(usage());
            System.exit(e.getMessage() == null ? 0 : 2);
            return;
        }
        long start = System.nanoTime();
        StopClient c = new StopClient(cfg);
        int status = 1;
        try {
            c.start();
            if (!c.awaitLogon(30_000)) {
                System.out.println("CLIENT FAILED no logon to " + cfg.host + ":" + cfg.port + " in 30 s");
                return;
            }
            System.out.println("CLIENT LOGON " + cfg.senderCompId + " -> " + cfg.host + ":" + cfg.port);
            c.subscribe();
            System.out.println("CLIENT SUBSCRIBED " + c.stops().stream().map(StopClient.Stop::symbol).distinct().toList()
                    + "; " + cfg.maxFires + " fires wanted");
            long deadline = start + timeoutS[0] * 1_000_000_000L;
            boolean ok = false;
            while (System.nanoTime() < deadline) {   // progress every 5 s, from this thread, not the FIX one
                ok = c.awaitDone(5000);
                if (ok || c.failure() != null) break;
                System.out.println("CLIENT FIRES " + c.fires() + " (market data " + c.marketDataMessages() + ")");
            }
            Thread.sleep(300);   // the execution reports of the last orders
            if (csv[0] != null) c.writeFires(Path.of(csv[0]));
            String counts = "fires=" + c.fires() + " fills=" + c.fills() + " rejects=" + c.rejects()
                    + " md=" + c.marketDataMessages() + " seconds=" + (System.nanoTime() - start) / 1_000_000_000L;
            if (ok) {
                System.out.println("CLIENT DONE " + counts);
                status = 0;
            } else {
                System.out.println("CLIENT FAILED " + (c.failure() != null ? c.failure()
                        : "only " + c.fires() + " of " + cfg.maxFires + " fires in " + timeoutS[0] + " s") + "; " + counts);
            }
        } finally {
            c.close();   // Logout, then the socket closes
            System.out.flush();
            System.exit(status);
        }
    }
}
