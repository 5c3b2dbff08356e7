"use client";
// The fork tree: every trajectory of this mind or archive, children nested
// under their parent, to move between them. The current one is marked.
import { memo } from "react";
import { ancestors, forkTree, roots, type TrajectoryNode } from "@/lib/trajectory/dag";
import type { TrajectoryRow } from "@/lib/trajectory/source";

export const ForkTree = memo(function ForkTree({ trajectories, current, onOpen }: { trajectories: TrajectoryRow[]; current: string | undefined; onOpen: (trajId: string) => void }) {
  const tree = forkTree(trajectories.map((t) => ({ type: "trajectory", step_id: t.traj_id, name: t.name, parent_traj: t.parent_traj, parent_step: t.parent_step })));
  const path = current ? ancestors(tree, current) : [];
  const Node = ({ node, depth }: { node: TrajectoryNode; depth: number }) => (
    <li>
      <button
        type="button"
        data-traj-id={node.id}
        aria-current={node.id === current ? "page" : undefined}
        onClick={() => onOpen(node.id)}
        className={`w-full truncate rounded px-1 text-left text-xs hover:bg-stone-100 dark:hover:bg-stone-900 ${node.id === current ? "bg-indigo-100 font-medium dark:bg-indigo-950" : ""}`}
        style={{ paddingLeft: `${0.25 + depth * 0.75}rem` }}
        title={node.id}
      >
        {depth > 0 ? "↳ " : ""}
        {node.name} <span className="text-stone-600 dark:text-stone-400">{node.id.slice(0, 8)}</span>
      </button>
      {node.children.length > 0 && (
        <ul>
          {node.children.map((c) => {
            const child = tree.get(c);
            return child ? <Node key={c} node={child} depth={depth + 1} /> : null;
          })}
        </ul>
      )}
    </li>
  );
  return (
    <nav data-testid="fork-tree" aria-label="Fork tree" className="max-h-32 w-full shrink-0 overflow-y-auto rounded border sm:max-h-none sm:w-56 sm:overflow-visible border-stone-200 p-1 dark:border-stone-800">
      {path.length > 0 && (
        <p className="mb-1 truncate px-1 text-[11px] text-stone-500 dark:text-stone-400" data-testid="traj-ancestors">
          {path.map((n) => n.name).join(" › ")} ›
        </p>
      )}
      <ul>
        {roots(tree).map((r) => (
          <Node key={r.id} node={r} depth={0} />
        ))}
      </ul>
    </nav>
  );
});
