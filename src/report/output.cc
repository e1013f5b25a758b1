#include "report/output.h"

#include "report/render_views.h"

namespace forgemeter::report {

std::string render_format(const ReportData& data, std::string_view format, View view) {
  const bool by_replica = view == View::replica;
  if (format == "html") return render_html(data);
  if (format == "json") return by_replica ? render_replica_json(data) : render_json(data);
  if (format == "csv") return by_replica ? render_replica_csv(data) : render_csv(data);
  return by_replica ? render_replica_table(data) : render_table(data);
}

}  // namespace forgemeter::report
