/** (a) The floor: raw node:http answering a small 404. Prints its URL. */
import { createServer } from 'node:http';

const body = 'Not Found';
const server = createServer((_request, response) => {
  response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'content-length': body.length }).end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
