// One push with Go's standard library (net/http negotiates HTTP/2 over TLS): `go run main.go`.
package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"time"
)

func main() {
	caPEM, err := os.ReadFile(os.Getenv("APNS_CA_FILE"))
	check(err)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)

	keyPEM, err := os.ReadFile(os.Getenv("APNS_KEY_FILE"))
	check(err)
	block, _ := pem.Decode(keyPEM)
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	check(err)
	key := parsed.(*ecdsa.PrivateKey)
	b64 := base64.RawURLEncoding
	header := b64.EncodeToString([]byte(fmt.Sprintf(`{"alg":"ES256","kid":%q}`, os.Getenv("APNS_KEY_ID"))))
	claims := b64.EncodeToString([]byte(fmt.Sprintf(`{"iss":%q,"iat":%d}`, os.Getenv("APNS_TEAM_ID"), time.Now().Unix())))
	digest := sha256.Sum256([]byte(header + "." + claims))
	r, s, err := ecdsa.Sign(rand.Reader, key, digest[:])
	check(err)
	// APNs wants r‖s, each 32 bytes.
	signature := append(pad(r), pad(s)...)
	jwt := header + "." + claims + "." + b64.EncodeToString(signature)

	// To keep Apple's name in SNI while dialling the emulator, set ServerName: "api.push.apple.com" and a
	// Transport.DialContext that connects to 127.0.0.1.
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true}}
	request, err := http.NewRequest("POST", os.Getenv("APNS_URL")+"/3/device/"+os.Getenv("APNS_DEVICE_TOKEN"),
		bytes.NewBufferString(`{"aps":{"alert":"Hello from Go"}}`))
	check(err)
	request.Header.Set("authorization", "bearer "+jwt)
	request.Header.Set("apns-topic", os.Getenv("APNS_TOPIC"))
	request.Header.Set("apns-push-type", "alert")
	response, err := client.Do(request)
	check(err)
	body, _ := io.ReadAll(response.Body)
	fmt.Printf("status %d apns-id %s %s(%s)\n", response.StatusCode, response.Header.Get("apns-id"), string(body), response.Proto)
	if response.StatusCode != 200 {
		os.Exit(1)
	}
}

func pad(n *big.Int) []byte {
	b := n.Bytes()
	return append(make([]byte, 32-len(b)), b...)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
