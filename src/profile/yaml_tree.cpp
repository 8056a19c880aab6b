#include "profile/yaml_tree.hpp"

namespace ibsetup::profile::detail {

namespace {

// Not a namespace-scope std::string: that is built by a static initializer at every load of
// the library.
const std::string& empty_string()
{
  static const std::string s;
  return s;
}

}  // namespace

const std::string& YamlNode::Scalar() const
{
  return IsScalar() ? m_data->scalar : empty_string();
}

const std::string& YamlNode::Tag() const
{
  return m_data == nullptr ? empty_string() : m_data->tag;
}

size_t YamlNode::size() const
{
  switch (kind()) {
  case YamlKind::sequence:
    return m_data->children.size();
  case YamlKind::map:
    return m_data->children.size() / 2;
  case YamlKind::null:
  case YamlKind::scalar:
  default:
    return 0;
  }
}

YamlNodeData& YamlDocument::make(YamlKind kind, ibsetup::Mark mark)
{
  auto& node = m_nodes.emplace_back();
  node.kind = kind;
  node.mark = mark;
  return node;
}

void YamlBuilder::null(ibsetup::Mark mark, size_t anchor)
{
  attach(add(YamlKind::null, mark, anchor));
}

void YamlBuilder::scalar(ibsetup::Mark mark, size_t anchor, const std::string& tag,
                         const std::string& text)
{
  auto& node = add(YamlKind::scalar, mark, anchor);
  node.tag = tag;
  node.scalar = text;
  attach(node);
}

bool YamlBuilder::alias(size_t anchor)
{
  if (anchor >= m_anchors.size() || m_anchors[anchor] == nullptr) {
    return false;
  }
  attach(*m_anchors[anchor]);
  return true;
}

void YamlBuilder::open(YamlKind kind, ibsetup::Mark mark, size_t anchor, const std::string& tag)
{
  auto& node = add(kind, mark, anchor);
  node.tag = tag;
  attach(node);
  m_open.push_back(&node);
}

void YamlBuilder::close()
{
  if (!m_open.empty()) {
    m_open.pop_back();
  }
}

YamlNodeData& YamlBuilder::add(YamlKind kind, ibsetup::Mark mark, size_t anchor)
{
  auto& node = m_doc.make(kind, mark);
  if (anchor != 0) {
    if (anchor >= m_anchors.size()) {
      m_anchors.resize(anchor + 1);
    }
    m_anchors[anchor] = &node;
  }
  return node;
}

void YamlBuilder::attach(const YamlNodeData& node)
{
  // A collection gets its children in event order, which is also the order in which
  // NodeBuilder inserts them once each is complete.
  if (!m_open.empty()) {
    m_open.back()->children.push_back(&node);
  }
}

}  // namespace ibsetup::profile::detail
