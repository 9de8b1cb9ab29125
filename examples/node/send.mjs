// One push with Node's core http2 and crypto: no packages.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http2 from 'node:http2';

const env = process.env;
const b64url = (data) => Buffer.from(data).toString('base64url');
const header = b64url(JSON.stringify({ alg: 'ES256', kid: env.APNS_KEY_ID }));
const claims = b64url(JSON.stringify({ iss: env.APNS_TEAM_ID, iat: Math.floor(Date.now() / 1000) }));
// APNs wants the raw r‖s signature (IEEE P1363), not DER.
const signature = crypto.sign('sha256', Buffer.from(`${header}.${claims}`),
  { key: fs.readFileSync(env.APNS_KEY_FILE), dsaEncoding: 'ieee-p1363' });
const jwt = `${header}.${claims}.${b64url(signature)}`;

// `servername: 'api.push.apple.com'` would send Apple's name in SNI while connecting to APNS_URL's address.
const client = http2.connect(env.APNS_URL, { ca: fs.readFileSync(env.APNS_CA_FILE) });
client.on('error', (error) => { console.error(error.message); process.exit(2); });
const request = client.request({
  ':method': 'POST', ':path': `/3/device/${env.APNS_DEVICE_TOKEN}`,
  authorization: `bearer ${jwt}`, 'apns-topic': env.APNS_TOPIC, 'apns-push-type': 'alert',
});
let status = 0, id = '', body = '';
request.setTimeout(10_000, () => { console.error('no answer in 10 s'); process.exit(2); });
request.on('error', (error) => { console.error(error.message); process.exit(2); });
request.setEncoding('utf8');
request.on('response', (headers) => { status = headers[':status']; id = headers['apns-id'] ?? ''; });
request.on('data', (chunk) => { body += chunk; });
request.on('end', () => {
  console.log(`status ${status} apns-id ${id}${body ? ' ' + body : ''}`);
  client.close();
  process.exitCode = status === 200 ? 0 : 1;
});
request.end(JSON.stringify({ aps: { alert: 'Hello from Node' } }));
