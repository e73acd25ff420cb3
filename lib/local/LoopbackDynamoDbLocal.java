// Starts DynamoDB Local (its jar on the class path) as its own main class does, with two changes:
//   - its Jetty server listens on 127.0.0.1 only, where DynamoDB Local itself binds every interface
//     and has no option to do otherwise;
//   - with -Dstore.exitWithParent=true it exits when its standard input ends, that is when the
//     process that started it and holds the other end (npm start, a tool, the tests) is gone, even
//     killed: no DynamoDB Local is left behind holding the data dir and its port.
// Run by lib/local/dynamodb-local.ts in Java's source-file mode
// (`java -cp <DynamoDB Local's jars> LoopbackDynamoDbLocal.java <DynamoDB Local's options>`).
import java.io.IOException;
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class LoopbackDynamoDbLocal {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    for (Connector connector : ((Server) field.get(proxy)).getConnectors()) {
      ((ServerConnector) connector).setHost("127.0.0.1");
    }
    if (Boolean.getBoolean("store.exitWithParent")) {
      Thread watcher = new Thread(() -> {
        try {
          while (System.in.read() != -1) {}
        } catch (IOException ignored) {
          // A broken pipe is an end too.
        }
        System.exit(0);
      });
      watcher.setDaemon(true);
      watcher.start();
    }
    proxy.start();
  }
}
