import { Packet, createServer } from 'dns2';

/** RFC 1035 §4.1.1 response codes (dns2's Packet.RCODE is missing from its types). */
const RCODE = { NXDOMAIN: 3, SERVFAIL: 2, REFUSED: 5 } as const;

/** What the test DNS server answers for one name. */
export type DnsAnswer =
  /** TXT records, each a list of character-strings (split strings). */
  | { txt: string[][] }
  /** A CNAME to another name, answered together with that name's records, as a recursive resolver would. */
  | { cname: string }
  | { rcode: 'SERVFAIL' | 'REFUSED' };

export interface TestDns {
  /** host:port for CLAIM_DNS_SERVERS. */
  server: string;
  /** Answers by lower-case name; an unknown name is NXDOMAIN. Change it between checks. */
  zone: Map<string, DnsAnswer>;
  /** Names asked, in order. */
  queries: string[];
  close(): Promise<void>;
}

/** A real DNS server (dns2, UDP) on 127.0.0.1 serving `zone`. */
export async function startTestDns(): Promise<TestDns> {
  const zone = new Map<string, DnsAnswer>();
  const queries: string[] = [];
  const server = createServer({
    udp: true,
    handle(request, send) {
      const response = Packet.createResponseFromRequest(request);
      const name = request.questions[0]?.name.toLowerCase() ?? '';
      queries.push(name);
      answer(response, name, zone);
      void send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  return { server: `127.0.0.1:${addresses.udp!.port}`, zone, queries, close: () => server.close() };
}

function answer(response: Packet, name: string, zone: Map<string, DnsAnswer>, depth = 0): void {
  const found = zone.get(name);
  if (!found) {
    if (depth === 0) response.header.rcode = RCODE.NXDOMAIN;
    return;
  }
  if ('rcode' in found) {
    response.header.rcode = RCODE[found.rcode];
    return;
  }
  if ('cname' in found) {
    response.answers.push({ name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: 60, domain: found.cname } as never);
    if (depth < 5) answer(response, found.cname.toLowerCase(), zone, depth + 1);
    return;
  }
  for (const strings of found.txt) {
    response.answers.push({ name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 60, data: strings } as never);
  }
}
