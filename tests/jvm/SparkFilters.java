// Writes Spark's own Bloom filters (org.apache.spark.util.sketch, from the
// PySpark wheel's jars/) for the Rust tests to read, with Spark's answers for
// absent keys, and answers for a filter the Rust side wrote:
//
//   javac -cp spark-sketch.jar -d out tests/jvm/SparkFilters.java
//   java -cp spark-sketch.jar:out SparkFilters write DIR     # the golden files
//   java -cp spark-sketch.jar:out SparkFilters answer FILE N # Spark's answers for FILE
//
// Keys: strings "spark-<i>" (putString: UTF-8 bytes), longs i * 7919
// (putLong), byte arrays of i's decimal digits (putBinary), i < the count:
// three keys for each i, and each filter sized for all of them.
// Absent keys: "absent-<i>" strings and longs 1e12 + i, i < 100000.
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import org.apache.spark.util.sketch.BloomFilter;

public class SparkFilters {
    static final int ABSENT = 100_000;

    static void fill(BloomFilter f, int count) {
        for (int i = 0; i < count; i++) {
            f.putString("spark-" + i);
            f.putLong(i * 7919L);
            f.putBinary(Integer.toString(i).getBytes(StandardCharsets.UTF_8));
        }
    }

    // One line per kind of absent key: the indices Spark reports present.
    static String answers(BloomFilter f) {
        StringBuilder strings = new StringBuilder("strings");
        StringBuilder longs = new StringBuilder("longs");
        for (int i = 0; i < ABSENT; i++) {
            if (f.mightContainString("absent-" + i)) strings.append(' ').append(i);
            if (f.mightContainLong(1_000_000_000_000L + i)) longs.append(' ').append(i);
        }
        return strings + "\n" + longs + "\n";
    }

    static void write(Path dir, String name, BloomFilter f, int count) throws IOException {
        fill(f, count);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        f.writeTo(out);
        Files.write(dir.resolve(name + ".bin"), out.toByteArray());
        Files.writeString(dir.resolve(name + ".answers"), answers(f));
    }

    // `time DIR`: a filter of 1M longs (i * 7919) at 1%, written to
    // DIR/timed.bin, then 10M mightContain of i * 7919 for i < 10M (a tenth
    // present), warmed by two rounds: the best of five rounds, in ns a query.
    static void time(Path dir) throws IOException {
        BloomFilter f = BloomFilter.create(1_000_000, 0.01);
        for (long i = 0; i < 1_000_000; i++) f.putLong(i * 7919L);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        f.writeTo(out);
        Files.write(dir.resolve("timed.bin"), out.toByteArray());
        double best = Double.MAX_VALUE;
        long hits = 0;
        for (int round = 0; round < 7; round++) {
            long start = System.nanoTime();
            for (long i = 0; i < 10_000_000; i++) if (f.mightContainLong(i * 7919L)) hits++;
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
            write(dir, "spark-v1-1000-p03", BloomFilter.create(BloomFilter.Version.V1, 3000, BloomFilter.optimalNumOfBits(3000, 0.03), 0), 1000);
            write(dir, "spark-v2-1000-p03", BloomFilter.create(3000, 0.03), 1000);
            write(dir, "spark-v2-5000-p001-seed7", BloomFilter.create(BloomFilter.Version.V2, 15000, BloomFilter.optimalNumOfBits(15000, 0.001), 7), 5000);
        } else {
            // How many of the keys of 0..N it lacks, then its answers.
            BloomFilter f = BloomFilter.readFrom(Files.readAllBytes(Paths.get(args[1])));
            int count = Integer.parseInt(args[2]), missing = 0;
            for (int i = 0; i < count; i++) {
                if (!f.mightContainString("spark-" + i)) missing++;
                if (!f.mightContainLong(i * 7919L)) missing++;
                if (!f.mightContainBinary(Integer.toString(i).getBytes(StandardCharsets.UTF_8))) missing++;
            }
            System.out.print("missing " + missing + "\n" + answers(f));
        }
    }
}
