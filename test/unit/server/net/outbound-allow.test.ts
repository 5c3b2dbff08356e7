// OUTBOUND_ALLOW's parser (lib/server/net/outbound-allow.ts): `host:port`
// entries, an IP address or localhost, and a problem naming each entry that
// is not one (`npm start` refuses to start on any); what an entry lists.
import { describe, expect, it } from "vitest";
import { listedPorts } from "@/lib/server/net/address-policy";
import { listedPortText, parseOutboundAllow } from "@/lib/server/net/outbound-allow";

describe("parseOutboundAllow (OUTBOUND_ALLOW)", () => {
  it("reads entries separated by commas or whitespace: IPv4, IPv6 in brackets, localhost", () => {
    expect(parseOutboundAllow(undefined)).toEqual({ ok: true, entries: [] });
    expect(parseOutboundAllow(" ,\n ")).toEqual({ ok: true, entries: [] });
    const parsed = parseOutboundAllow("127.0.0.1:8080, [::1]:8080\n10.0.0.5:443  LocalHost:11434 [FD00::1]:80 models.localhost:9000");
    expect(parsed).toEqual({
      ok: true,
      entries: [
        { host: "127.0.0.1", port: 8080 },
        { host: "::1", port: 8080 },
        { host: "10.0.0.5", port: 443 },
        { host: "localhost", port: 11434 },
        { host: "fd00::1", port: 80 },
        { host: "localhost", port: 9000 },
      ],
    });
    expect(parsed.ok && parsed.entries.map(listedPortText)).toEqual(["127.0.0.1:8080", "[::1]:8080", "10.0.0.5:443", "localhost:11434", "[fd00::1]:80", "localhost:9000"]);
  });

  it("names every malformed entry, and says what an entry is", () => {
    expect(parseOutboundAllow("127.0.0.1:8080 http://127.0.0.1:8080/ 127.0.0.1 ::1:8080 [127.0.0.1]:80 127.0.0.1:0 127.0.0.1:70000 models.internal:443 :8080 127.0.0.1:80/v1")).toEqual({
      ok: false,
      problems: [
        'OUTBOUND_ALLOW: "http://127.0.0.1:8080/" is a URL; an entry is an address and a port, such as 127.0.0.1:8080, [::1]:8080 or localhost:11434',
        'OUTBOUND_ALLOW: "127.0.0.1" is not an address and a port (such as 127.0.0.1:8080, [::1]:8080 or localhost:11434; an IPv6 address goes in brackets)',
        'OUTBOUND_ALLOW: "::1:8080" is not an address and a port (such as 127.0.0.1:8080, [::1]:8080 or localhost:11434; an IPv6 address goes in brackets)',
        'OUTBOUND_ALLOW: "[127.0.0.1]:80" has something in brackets that is not an IPv6 address',
        'OUTBOUND_ALLOW: "127.0.0.1:0" has a port outside 1 to 65535',
        'OUTBOUND_ALLOW: "127.0.0.1:70000" has a port outside 1 to 65535',
        "OUTBOUND_ALLOW: \"models.internal:443\" names a host (models.internal); list its IP address with the port instead, or localhost: a name's addresses can change, the host's word cannot",
        'OUTBOUND_ALLOW: ":8080" has no address before its port (such as 127.0.0.1:8080, [::1]:8080 or localhost:11434)',
        'OUTBOUND_ALLOW: "127.0.0.1:80/v1" is not an address and a port (such as 127.0.0.1:8080, [::1]:8080 or localhost:11434; an IPv6 address goes in brackets)',
      ],
    });
  });

  it("an entry lists its address at its port only; localhost lists every loopback address at its port", () => {
    const parsed = parseOutboundAllow("127.0.0.1:8080 [::1]:9090 localhost:11434");
    if (!parsed.ok) throw new Error(parsed.problems.join("; "));
    const listed = listedPorts(parsed.entries);
    expect(listed("127.0.0.1", 8080)).toBe(true);
    expect(listed("::ffff:127.0.0.1", 8080)).toBe(true); // the same address, spelled as IPv6
    expect(listed("127.0.0.1", 8081)).toBe(false);
    expect(listed("127.0.0.2", 8080)).toBe(false);
    expect(listed("0:0:0:0:0:0:0:1", 9090)).toBe(true);
    expect(listed("127.0.0.1", 9090)).toBe(false);
    expect(listed("127.0.0.1", 11434)).toBe(true);
    expect(listed("127.9.9.9", 11434)).toBe(true);
    expect(listed("::1", 11434)).toBe(true);
    expect(listed("10.0.0.1", 11434)).toBe(false);
  });
});
