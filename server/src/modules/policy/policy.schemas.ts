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
