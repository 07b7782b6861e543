import { Type, type Static } from 'typebox';

export const StandardVerdict = Type.Object(
  {
    verdict: Type.Union([Type.Literal('standard'), Type.Literal('non-standard'), Type.Literal('unknown')], {
      description: "'standard': public nodes (Bitcoin Core's default policy) would relay it; 'non-standard': they refuse it, see reason; 'unknown': no policy node could judge it",
    }),
    reason: Type.Optional(Type.String({ description: "Bitcoin Core's reject reason, as testmempoolaccept gives it" })),
    explanation: Type.Optional(Type.String({ description: 'Why public nodes refuse it, in plain words' })),
  },
  { description: 'Whether the public network would relay this transaction, judged by a node with Bitcoin Core\'s default policy' },
);
export type StandardVerdict = Static<typeof StandardVerdict>;

export const PolicyVerdict = Type.Object(
  {
    policy: Type.Union([Type.Literal('core'), Type.Literal('core-29'), Type.Literal('knots')], {
      description: "'core': Bitcoin Core 30 and later with its defaults; 'core-29': Bitcoin Core 29 and earlier, and Knots with -corepolicy; 'knots': Bitcoin Knots with its defaults",
    }),
    relays: Type.Union([Type.Boolean(), Type.Null()], { description: 'Whether nodes with this policy would relay it; null when no rule or node available could tell' }),
    reason: Type.Optional(Type.String({ description: "The reject reason, as that node's testmempoolaccept gives it" })),
    explanation: Type.Optional(Type.String({ description: 'Why, in plain words' })),
    network_share: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: "The share of the network's nodes (percent) this policy stands for, as the operator configured it (POLICY_NETWORK_SHARES); absent when not configured" })),
  },
  { description: 'Whether nodes running one relay policy would relay this transaction' },
);
export type PolicyVerdict = Static<typeof PolicyVerdict>;
