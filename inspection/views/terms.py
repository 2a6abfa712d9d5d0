"""Coded inspection values as people read them, in the page language (pages and tablet shells)."""
from ..i18n import current_language
from ..messages import Msg

# Coded values shown to people; Msg so the catalog test sees them and they follow the page language.
TERMS = {
    "kind": {"navegabilidad": Msg("Navegabilidad"), "seguridad": Msg("Seguridad"),
             "documentacion": Msg("Documentación"), "menores": Msg("Embarcaciones menores (art. 210)")},
    "status": {"scheduled": Msg("Programada"), "in_progress": Msg("En curso"), "submitted": Msg("Cerrada"),
               "interrupted": Msg("Interrumpida"), "cancelled": Msg("Cancelada")},
    "outcome": {"passed": Msg("Aprobada"), "passed_with_observations": Msg("Aprobada con observaciones"),
                "failed": Msg("No aprobada")},
    "coverage": {"covered": Msg("Cubierto"), "excluded": Msg("Excluido"), "pending": Msg("Pendiente"),
                 "uncovered": Msg("Sin cubrir")},
    "result": {"pass": Msg("Cumple"), "fail": Msg("No cumple"), "not_applicable": Msg("No corresponde")},
    "action": {"rectified": Msg("Subsanada a bordo"), "before_departure": Msg("Antes de zarpar"),
               "within_14_days": Msg("Dentro de 14 días"), "next_port": Msg("En el próximo puerto"),
               "detained": Msg("Buque detenido")},
    # The fleet's states (cycle.py); the page shows a sign and the word beside the colour.
    "state": {"ok": Msg("Al día"), "due_soon": Msg("Por vencer"), "overdue": Msg("Vencido"),
              "suspended": Msg("Suspendido"), "missing": Msg("Sin certificado")},
    "application": {"pending": Msg("Pendiente"), "scheduled": Msg("Programada"), "done": Msg("Atendida"),
                    "cancelled": Msg("Cancelada")},
    "deficiency": {"open": Msg("Abierta"), "reported_fixed": Msg("Informada subsanada"), "closed": Msg("Cerrada")},
    "audit": {"inspection.scheduled": Msg("Inspección programada"), "inspection.started": Msg("Inspección comenzada"),
              "answer.recorded": Msg("Respuesta registrada"), "photo.added": Msg("Foto recibida"),
              "inspection.submitted": Msg("Inspección cerrada"),
              "inspection.interrupted": Msg("Inspección interrumpida"),
              "inspection.reinspection_scheduled": Msg("Reinspección programada (art. 206)"),
              "deficiency.reported_fixed": Msg("Deficiencia informada subsanada"),
              "deficiency.closed": Msg("Deficiencia cerrada"), "vessel.detained": Msg("Buque detenido (art. 208)"),
              "vessel.detention_lifted": Msg("Detención levantada"),
              "certificate.issued": Msg("Certificado emitido")},
}

def term(group: str, value) -> str:
    """The label of a coded inspection value in the page language (the code itself when unknown)."""
    found = TERMS.get(group, {}).get(value)
    return found.in_language(current_language()) if found is not None else ("" if value is None else str(value))
