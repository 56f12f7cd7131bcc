package listingdirectory;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.opensearch.common.settings.Settings;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.transport.Netty4Plugin;

/**
 * One OpenSearch node in this JVM, with the modules the directory's index uses put on the class
 * path instead of a distribution's modules/ folder (the index needs only HTTP: its fields are
 * keywords, see src/search/opensearch-index.ts): Maven Central serves the server and module
 * jars, not the distribution archive. Usage: OpenSearchNode <home> <httpPort>.
 */
public final class OpenSearchNode extends Node {
  private OpenSearchNode(Settings settings) {
    super(
        InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), null, () -> "listing-directory"),
        List.of(Netty4Plugin.class),
        true);
  }

  public static void main(String[] args) throws Exception {
    Path home = Path.of(args[0]).toAbsolutePath();
    Settings settings = Settings.builder()
        .put("path.home", home.toString())
        .put("path.data", home.resolve("data").toString())
        .put("path.logs", home.resolve("logs").toString())
        .put("cluster.name", "listing-directory")
        .put("node.name", "listing-directory")
        .put("discovery.type", "single-node")
        .put("network.host", "127.0.0.1")
        .put("http.port", args[1])
        .put("transport.port", args.length > 2 ? args[2] : "0")
        // A small test or laptop disk would otherwise turn every index read-only.
        .put("cluster.routing.allocation.disk.threshold_enabled", false)
        .put("http.type", "netty4")
        .put("transport.type", "netty4")
        .build();
    Node node = new OpenSearchNode(settings);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        node.close();
      } catch (Exception e) {
        e.printStackTrace();
      }
      stopped.countDown();
    }));
    node.start();
    System.out.println("opensearch listening on 127.0.0.1:" + args[1]);
    stopped.await();
  }
}
