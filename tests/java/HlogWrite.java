// HlogWrite.java - test-only (tests/integration/loadgen/hdrhistogram.t): write an
// interval log with HdrHistogram's own Java implementation (Debian
// libhdrhistogram-java), then print the figures HdrHistogram computes for the
// whole log, for `mtebench report` to reproduce.
// usage: java HlogWrite FILE UNIT_COMMENT(yes|no)
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.util.Random;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

public class HlogWrite {
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new FileOutputStream(args[0]));
        HistogramLogWriter w = new HistogramLogWriter(out);
        Random r = new Random(42);
        Histogram total = new Histogram(3600L * 1000 * 1000, 3);   // values in us, 3 digits
        double start = 1700000000.0;
        w.outputLogFormatVersion();
        if (args[1].equals("yes"))
            w.outputComment("[ValueUnit: us]");
        w.outputStartTime((long) (start * 1000));
        w.setBaseTime((long) (start * 1000));
        w.outputBaseTime((long) (start * 1000));
        w.outputLegend();
        for (int i = 0; i < 3; i++) {
            Histogram h = new Histogram(3600L * 1000 * 1000, 3);
            h.setStartTimeStamp((long) (start * 1000) + i * 1000L);
            h.setEndTimeStamp((long) (start * 1000) + (i + 1) * 1000L);
            for (int k = 0; k < 20000; k++)
                h.recordValue((long) Math.exp(4.0 + 1.2 * r.nextGaussian() + 0.3 * i));
            w.outputIntervalHistogram(h);
            total.add(h);
        }
        out.close();
        System.out.printf("count %d%n", total.getTotalCount());
        System.out.printf("p50 %d%n", total.getValueAtPercentile(50.0));
        System.out.printf("p99 %d%n", total.getValueAtPercentile(99.0));
        System.out.printf("p99.9 %d%n", total.getValueAtPercentile(99.9));
        System.out.printf("max %d%n", total.getMaxValue());
    }
}
