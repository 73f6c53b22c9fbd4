// A loopback proxy adding `Authorization: Bearer $TOKEN` to every request (the conformance
// suite cannot send headers of its own): node proxy.mjs TARGET_PORT TOKEN; prints its port.
import http from 'node:http';
const [target, token] = process.argv.slice(2);
const server = http.createServer((req, res) => {
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  const upstream = http.request({ host: '127.0.0.1', port: Number(target), path: req.url, method: req.method, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => { res.writeHead(502); res.end(); });
  req.pipe(upstream);
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
