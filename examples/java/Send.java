// One push with the JDK alone (java.net.http over HTTP/2): `java Send.java`.
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

public class Send {
    public static void main(String[] args) throws Exception {
        Map<String, String> env = System.getenv();
        // Trust the emulator's CA (only it: this context is for the emulator).
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(Path.of(env.get("APNS_CA_FILE")))) {
            trust.setCertificateEntry("apns-emulator", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, tmf.getTrustManagers(), null);

        // The .p8 key is PKCS#8 PEM; APNs wants the raw r‖s signature (P1363), not DER.
        String pem = Files.readString(Path.of(env.get("APNS_KEY_FILE")))
            .replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        PrivateKey key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String header = b64.encodeToString(("{\"alg\":\"ES256\",\"kid\":\"" + env.get("APNS_KEY_ID") + "\"}").getBytes(StandardCharsets.UTF_8));
        String claims = b64.encodeToString(("{\"iss\":\"" + env.get("APNS_TEAM_ID") + "\",\"iat\":" + System.currentTimeMillis() / 1000 + "}")
            .getBytes(StandardCharsets.UTF_8));
        Signature signer = Signature.getInstance("SHA256withECDSAinP1363Format");
        signer.initSign(key);
        signer.update((header + "." + claims).getBytes(StandardCharsets.UTF_8));
        String jwt = header + "." + claims + "." + b64.encodeToString(signer.sign());

        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(tls).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create(env.get("APNS_URL") + "/3/device/" + env.get("APNS_DEVICE_TOKEN")))
            .header("authorization", "bearer " + jwt)
            .header("apns-topic", env.get("APNS_TOPIC"))
            .header("apns-push-type", "alert")
            .POST(HttpRequest.BodyPublishers.ofString("{\"aps\":{\"alert\":\"Hello from Java\"}}"))
            .build();
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        System.out.println("status " + response.statusCode() + " apns-id " + response.headers().firstValue("apns-id").orElse("")
            + (response.body().isEmpty() ? "" : " " + response.body()) + " (" + response.version() + ")");
        System.exit(response.statusCode() == 200 ? 0 : 1);
    }
}
