// Writes Guava's own Bloom filters (com.google.common.hash.BloomFilter,
// Debian's libguava-java: /usr/share/java/guava.jar) for the Rust tests to
// read, with Guava's answers for absent keys, and answers for a filter the
// Rust side wrote:
//
//   javac -cp guava.jar -d out tests/jvm/GuavaFilters.java
//   java -cp guava.jar:out GuavaFilters write DIR             # the golden files
//   java -cp guava.jar:out GuavaFilters answer FUNNEL FILE N  # Guava's answers for FILE
//
// One filter per funnel, as Guava types them: strings "guava-<i>"
// (Funnels.stringFunnel(UTF_8)), longs i * 7919 (Funnels.longFunnel()),
// byte arrays of i's decimal digits (Funnels.byteArrayFunnel()), i < N.
// Absent keys: "absent-<i>", 1e12 + i, and the digits of 1e12 + i, i < 100000.
import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;

public class GuavaFilters {
    static final int ABSENT = 100_000;

    static Object present(String funnel, int i) {
        switch (funnel) {
            case "strings": return "guava-" + i;
            case "longs": return i * 7919L;
            default: return Integer.toString(i).getBytes(StandardCharsets.UTF_8);
        }
    }

    static Object absent(String funnel, int i) {
        long n = 1_000_000_000_000L + i;
        switch (funnel) {
            case "strings": return "absent-" + i;
            case "longs": return n;
            default: return Long.toString(n).getBytes(StandardCharsets.UTF_8);
        }
    }

    @SuppressWarnings("unchecked")
    static Funnel<Object> funnel(String name) {
        switch (name) {
            case "strings": return (Funnel<Object>) (Funnel<?>) Funnels.stringFunnel(StandardCharsets.UTF_8);
            case "longs": return (Funnel<Object>) (Funnel<?>) Funnels.longFunnel();
            default: return (Funnel<Object>) (Funnel<?>) Funnels.byteArrayFunnel();
        }
    }

    // The indices of the absent keys Guava reports present.
    static String answers(BloomFilter<Object> f, String funnel) {
        StringBuilder out = new StringBuilder(funnel);
        for (int i = 0; i < ABSENT; i++) {
            if (f.mightContain(absent(funnel, i))) out.append(' ').append(i);
        }
        return out.append('\n').toString();
    }

    // `time DIR`: a filter of 1M longs (i * 7919) at 1%, written to
    // DIR/timed.bin, then 10M mightContain of i * 7919 for i < 10M (a tenth
    // present), warmed by two rounds: the best of five rounds, in ns a query.
    static void time(Path dir) throws IOException {
        BloomFilter<Long> f = BloomFilter.create(Funnels.longFunnel(), 1_000_000, 0.01);
        for (long i = 0; i < 1_000_000; i++) f.put(i * 7919L);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        f.writeTo(out);
        Files.write(dir.resolve("timed.bin"), out.toByteArray());
        double best = Double.MAX_VALUE;
        long hits = 0;
        for (int round = 0; round < 7; round++) {
            long start = System.nanoTime();
            for (long i = 0; i < 10_000_000; i++) if (f.mightContain(i * 7919L)) hits++;
            double ns = (System.nanoTime() - start) / 1e7;
            if (round >= 2) best = Math.min(best, ns);
        }
        System.out.println(best + " " + hits);
    }

    public static void main(String[] args) throws IOException {
        if (args[0].equals("time")) {
            time(Paths.get(args[1]));
        } else if (args[0].equals("write")) {
            Path dir = Paths.get(args[1]);
            String[] funnels = {"strings", "longs", "bytes"};
            int[][] sizes = {{1000, 3}, {20000, 1}};  // keys, then the rate in percent
            for (String name : funnels) {
                for (int[] size : sizes) {
                    BloomFilter<Object> f = BloomFilter.create(funnel(name), size[0], size[1] / 100.0);
                    for (int i = 0; i < size[0]; i++) f.put(present(name, i));
                    String file = "guava-" + name + "-" + size[0] + "-p" + size[1];
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    f.writeTo(out);
                    Files.write(dir.resolve(file + ".bin"), out.toByteArray());
                    Files.writeString(dir.resolve(file + ".answers"), answers(f, name));
                }
            }
        } else {
            String name = args[1];
            BloomFilter<Object> f = BloomFilter.readFrom(
                new ByteArrayInputStream(Files.readAllBytes(Paths.get(args[2]))), funnel(name));
            int count = Integer.parseInt(args[3]), missing = 0;
            for (int i = 0; i < count; i++) if (!f.mightContain(present(name, i))) missing++;
            System.out.print("missing " + missing + "\n" + answers(f, name));
        }
    }
}
